package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

// StartMemberControllers builds cmd/member-controller and runs it against
// every cluster. The processes die with the test process (parent-death
// signal), and their pid files sit with the federation managers' so that
// the sandbox's clean-up stops them too.
func (c *Clusters) StartMemberControllers() error {
	bin, err := Binary("member-controller")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Sandbox.ManagerDir(), 0o755); err != nil {
		return err
	}
	for _, name := range c.Names {
		if err := startMemberController(c.Sandbox, bin, name); err != nil {
			return err
		}
	}
	return nil
}

func startMemberController(sb *sandbox.Sandbox, bin, cluster string) error {
	id := cluster + "-member-controller"
	logFile, err := os.OpenFile(filepath.Join(sb.ManagerDir(), id+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "--kubeconfig", sb.KubeconfigPath(), "--context", cluster)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the member controller of %s: %w", cluster, err)
	}
	pid := cmd.Process.Pid
	go func() { _ = cmd.Wait() }()
	if err := os.WriteFile(filepath.Join(sb.ManagerDir(), id+".pid"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond)
	if !sandbox.Alive(pid) {
		return fmt.Errorf("the member controller of %s exited at once: see %s", cluster, logFile.Name())
	}
	return nil
}
