package vmagentpkg_test

import (
	"fmt"
	"strings"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

// The agent's command line as systemd makes it from the packaged unit and
// an env file written in the packaged one's format: what the sandbox does
// for each of its VMs, with the VM's paths.
func ExampleUnit_Command() {
	unit, err := vmagentpkg.PackagedUnit()
	if err != nil {
		panic(err)
	}
	env, err := vmagentpkg.SetEnvFile(vmagentpkg.EnvFile(), []vmagentpkg.Assignment{
		{Name: "ANTREAPLUS_SERVER", Value: "https://127.0.0.1:8443"},
		{Name: "ANTREAPLUS_STATE_FILE", Value: "/tmp/vm-1.state.json"},
		{Name: "ANTREAPLUS_EXTRA_ARGS", Value: "--report-interval=15s --v=2"},
	})
	if err != nil {
		panic(err)
	}
	file, err := vmagentpkg.ParseEnvFile(env)
	if err != nil {
		panic(err)
	}
	for _, arg := range unit.Command(unit.Env(file)) {
		fmt.Println(arg)
	}
	// Output:
	// /usr/bin/antreaplus-vm-agent
	// --server=https://127.0.0.1:8443
	// --token-file=/etc/antreaplus/vm-agent/token
	// --ca-file=/etc/antreaplus/vm-agent/ca.crt
	// --state-file=/tmp/vm-1.state.json
	// --resolv-conf=/etc/resolv.conf
	// --report-interval=15s
	// --v=2
}

// The removal script runs the agent with the unit's command line and
// --uninstall.
func ExampleScript() {
	prerm, err := vmagentpkg.Script("prerm")
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(string(prerm), "\n") {
		if strings.Contains(line, "'--uninstall'") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// "/usr/bin/antreaplus-vm-agent" "--server=${ANTREAPLUS_SERVER}" "--token-file=${ANTREAPLUS_TOKEN_FILE}" "--ca-file=${ANTREAPLUS_CA_FILE}" "--state-file=${ANTREAPLUS_STATE_FILE}" "--resolv-conf=${ANTREAPLUS_RESOLV_CONF}" $ANTREAPLUS_EXTRA_ARGS '--uninstall'
}
