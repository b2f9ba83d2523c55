package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	vmagentpkg "antreaplus.io/antreaplus/deploy/vm-agent"
)

// vmAgentFiles are where one VM's agent finds its token, CA and state
// file, and what it connects to: the sandbox's values of the packaged env
// file's variables.
type vmAgentFiles struct {
	server, token, ca, state string
}

// vmAgentEnv is the env file of a VM's agent: the packaged env file
// (/etc/antreaplus/vm-agent/env) with the VM's values, so that the
// packaged unit's defaults, real paths of a VM, are overridden as an
// operator would. The resolver file stays /etc/resolv.conf: ip netns exec
// mounts the namespace's own over it.
func vmAgentEnv(f vmAgentFiles) ([]byte, error) {
	return vmagentpkg.SetEnvFile(vmagentpkg.EnvFile(), []vmagentpkg.Assignment{
		{Name: "ANTREAPLUS_SERVER", Value: f.server},
		{Name: "ANTREAPLUS_TOKEN_FILE", Value: f.token},
		{Name: "ANTREAPLUS_CA_FILE", Value: f.ca},
		{Name: "ANTREAPLUS_STATE_FILE", Value: f.state},
		{Name: "ANTREAPLUS_EXTRA_ARGS", Value: "--report-interval=15s"},
	})
}

// vmAgentCommand is the command line a VM's agent runs with: the packaged
// unit's ExecStart, with the unit's environment and env (an env file) as
// systemd would make it, its program the agent binary given, under the
// unit's capability bounding set and no-new-privileges (setpriv), as
// systemd would run it.
func vmAgentCommand(unit *vmagentpkg.Unit, env []byte, agent string) ([]string, error) {
	file, err := vmagentpkg.ParseEnvFile(env)
	if err != nil {
		return nil, fmt.Errorf("the VM agent's env file: %w", err)
	}
	argv := unit.Command(unit.Env(file))
	if argv[0] != vmagentpkg.Binary {
		return nil, fmt.Errorf("the unit runs %s, not the agent %s", argv[0], vmagentpkg.Binary)
	}
	priv, err := setprivArgs(unit)
	if err != nil {
		return nil, err
	}
	return append(append(priv, agent), argv[1:]...), nil
}

// setprivArgs is the setpriv command that applies the unit's
// CapabilityBoundingSet= and NoNewPrivileges=.
func setprivArgs(unit *vmagentpkg.Unit) ([]string, error) {
	caps := strings.Fields(unit.Value("Service", "CapabilityBoundingSet"))
	if len(caps) == 0 {
		return nil, fmt.Errorf("%s has no CapabilityBoundingSet=", vmagentpkg.UnitName)
	}
	set := []string{"-all"}
	for _, c := range caps {
		name, ok := strings.CutPrefix(c, "CAP_")
		if !ok {
			return nil, fmt.Errorf("%s: CapabilityBoundingSet=%s: want CAP_ names", vmagentpkg.UnitName, c)
		}
		set = append(set, "+"+strings.ToLower(name))
	}
	args := []string{"setpriv", "--bounding-set=" + strings.Join(set, ","), "--inh-caps=-all"}
	if unit.Value("Service", "NoNewPrivileges") == "yes" {
		args = append(args, "--no-new-privs")
	}
	return append(args, "--"), nil
}

// writeVMAgentEnv writes the env file of vm's agent (<vm>.env) and
// returns the agent's command line.
func (s *Sandbox) writeVMAgentEnv(vm AgentVM, f vmAgentFiles, agent string) ([]string, error) {
	unit, err := vmagentpkg.PackagedUnit()
	if err != nil {
		return nil, err
	}
	env, err := vmAgentEnv(f)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(s.VMDir(), vm.Name+".env"), env, 0o644); err != nil {
		return nil, err
	}
	return vmAgentCommand(unit, env, agent)
}
