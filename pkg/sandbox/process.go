package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is a local process the sandbox runs beside its clusters (a
// federation manager, a member controller, a DNS server): a pid file and a
// log file in dir, both named after it.
type process struct {
	dir  string
	name string
	// what names it in messages, e.g. "the federation manager of member-1".
	what string
	// env is added to the sandbox's environment for it.
	env []string
}

func (p process) pidFile() string { return filepath.Join(p.dir, p.name+".pid") }

func (p process) logFile() string { return filepath.Join(p.dir, p.name+".log") }

// pid is the process's pid while it runs, else 0.
func (p process) pid() int {
	raw, err := os.ReadFile(p.pidFile())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || !Alive(pid) {
		return 0
	}
	return pid
}

// start runs binary with args unless the process runs already; its output
// goes to its log file. It returns the pid and whether it was started now.
func (p process) start(binary string, args ...string) (int, bool, error) {
	if pid := p.pid(); pid != 0 {
		return pid, false, nil
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return 0, false, err
	}
	logFile, err := os.OpenFile(p.logFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, false, err
	}
	defer logFile.Close()
	cmd := exec.Command(binary, args...)
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group: a Ctrl-C of the CLI does not stop it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, false, fmt.Errorf("starting %s (%s): %w", p.what, binary, err)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	if err := os.WriteFile(p.pidFile(), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return pid, true, err
	}
	// A process that exits at once (bad flags, bad kubeconfig, address in use) is reported here.
	time.Sleep(300 * time.Millisecond)
	if !Alive(pid) {
		return 0, true, fmt.Errorf("%s exited at once: see %s", p.what, p.logFile())
	}
	return pid, true, nil
}

// stop sends sig and, for SIGTERM and SIGKILL, waits for the process to
// exit (SIGKILL after 10 s).
func (p process) stop(sig syscall.Signal) error {
	pid := p.pid()
	if pid == 0 {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("signalling %s: %w", p.what, err)
	}
	if sig != syscall.SIGTERM && sig != syscall.SIGKILL {
		return nil
	}
	deadline := time.Now().Add(10 * time.Second)
	for Alive(pid) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	return killAll([]int{pid})
}

// processNames lists the processes with a pid file in dir.
func processNames(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".pid"))
	}
	return out
}
