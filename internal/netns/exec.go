package netns

import (
	"fmt"
	"os/exec"
	"strings"
)

// Command returns a command that runs inside the namespace (ip netns
// exec, which also mounts /etc/netns/NAME/* over /etc).
func (ns *NS) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns.Name, name}, args...)...)
}

// Run runs a command inside the namespace and returns its output in the
// error when it fails.
func (ns *NS) Run(name string, args ...string) error {
	_, err := ns.Output(name, args...)
	return err
}

// Output runs a command inside the namespace and returns what it printed.
func (ns *NS) Output(name string, args ...string) (string, error) {
	out, err := ns.Command(name, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s in %s: %w: %s", name, strings.Join(args, " "), ns.Name, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
