package vmagentpkg

import (
	_ "embed"
	"fmt"
)

const (
	// Name is the name of the package (.deb and tarball).
	Name = "antreaplus-vm-agent"
	// Binary is where the package installs the agent: the first word of
	// the unit's ExecStart.
	Binary = "/usr/bin/antreaplus-vm-agent"
	// UnitName is the name of the systemd unit.
	UnitName = "antreaplus-vm-agent.service"
	// UnitPath is where the package installs the unit.
	UnitPath = "/usr/lib/systemd/system/" + UnitName
)

var (
	//go:embed antreaplus-vm-agent.service
	unitFile string
	//go:embed env
	envFile string
	//go:embed README
	readme string
	//go:embed postinst
	postinst string
	//go:embed prerm
	prerm string
	//go:embed postrm
	postrm string
)

// UnitFile is the unit file, antreaplus-vm-agent.service.
func UnitFile() []byte { return []byte(unitFile) }

// EnvFile is the env file the package installs as a conffile at the
// unit's EnvironmentFile=.
func EnvFile() []byte { return []byte(envFile) }

// Readme is the README of the package and the tarball.
func Readme() []byte { return []byte(readme) }

// ScriptNames names the maintainer scripts.
func ScriptNames() []string { return []string{"postinst", "prerm", "postrm"} }

// Script is the maintainer script name (postinst, prerm, postrm) with its
// @...@ lines written from the unit (see RenderScript).
func Script(name string) ([]byte, error) {
	tmpl, ok := map[string]string{"postinst": postinst, "prerm": prerm, "postrm": postrm}[name]
	if !ok {
		return nil, fmt.Errorf("no maintainer script %q", name)
	}
	u, err := PackagedUnit()
	if err != nil {
		return nil, err
	}
	return RenderScript(tmpl, u)
}

// PackagedUnit is the unit file, parsed.
func PackagedUnit() (*Unit, error) {
	u, err := ParseUnit(UnitFile())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", UnitName, err)
	}
	return u, nil
}
