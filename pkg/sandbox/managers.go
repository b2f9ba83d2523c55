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

// ManagerDir holds the federation managers' pid files and logs.
func (s *Sandbox) ManagerDir() string { return filepath.Join(s.opts.Dir, "managers") }

// ManagerLog is the log file of the federation manager of a supervisor cluster.
func (s *Sandbox) ManagerLog(cluster string) string {
	return filepath.Join(s.ManagerDir(), cluster+".log")
}

func (s *Sandbox) managerPidFile(cluster string) string {
	return filepath.Join(s.ManagerDir(), cluster+".pid")
}

// ManagerPid returns the pid of a supervisor's running federation manager, or 0.
func (s *Sandbox) ManagerPid(cluster string) int {
	raw, err := os.ReadFile(s.managerPidFile(cluster))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || !Alive(pid) {
		return 0
	}
	return pid
}

// StartManager runs the federation manager of a supervisor cluster as a
// local process, unless one runs already. Its log goes to ManagerLog.
func (s *Sandbox) StartManager(cluster, binary string, args ...string) (int, error) {
	if pid := s.ManagerPid(cluster); pid != 0 {
		return pid, nil
	}
	if err := os.MkdirAll(s.ManagerDir(), 0o755); err != nil {
		return 0, err
	}
	logFile, err := os.OpenFile(s.ManagerLog(cluster), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer logFile.Close()
	all := append([]string{"--kubeconfig", s.KubeconfigPath(), "--context", cluster}, args...)
	cmd := exec.Command(binary, all...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group: a Ctrl-C of the CLI does not stop it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting the federation manager of %s (%s): %w", cluster, binary, err)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	if err := os.WriteFile(s.managerPidFile(cluster), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return pid, err
	}
	// A manager that exits at once (bad flags, bad kubeconfig) is reported here.
	time.Sleep(300 * time.Millisecond)
	if !Alive(pid) {
		return 0, fmt.Errorf("the federation manager of %s exited at once: see %s", cluster, s.ManagerLog(cluster))
	}
	s.logf("%s: federation manager running (pid %d, log %s)", cluster, pid, s.ManagerLog(cluster))
	return pid, nil
}

// StopManager sends sig to a supervisor's federation manager and, for
// SIGTERM, waits for it to exit (SIGKILL after 10 s).
func (s *Sandbox) StopManager(cluster string, sig syscall.Signal) error {
	pid := s.ManagerPid(cluster)
	if pid == 0 {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("signalling the federation manager of %s: %w", cluster, err)
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

// managerClusters lists the clusters with a manager pid file.
func (s *Sandbox) managerClusters() []string {
	files, _ := filepath.Glob(filepath.Join(s.ManagerDir(), "*.pid"))
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".pid"))
	}
	return out
}
