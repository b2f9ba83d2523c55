package sandbox

import (
	"path/filepath"
	"syscall"
)

// ManagerDir holds the federation managers' pid files and logs.
func (s *Sandbox) ManagerDir() string { return filepath.Join(s.opts.Dir, "managers") }

func (s *Sandbox) manager(cluster string) process {
	return process{dir: s.ManagerDir(), name: cluster, what: "the federation manager of " + cluster}
}

// ManagerLog is the log file of the federation manager of a supervisor cluster.
func (s *Sandbox) ManagerLog(cluster string) string { return s.manager(cluster).logFile() }

// ManagerPid returns the pid of a supervisor's running federation manager, or 0.
func (s *Sandbox) ManagerPid(cluster string) int { return s.manager(cluster).pid() }

// StartManager runs the federation manager of a supervisor cluster as a
// local process, unless one runs already. Its log goes to ManagerLog.
func (s *Sandbox) StartManager(cluster, binary string, args ...string) (int, error) {
	all := append([]string{"--kubeconfig", s.KubeconfigPath(), "--context", cluster}, args...)
	pid, started, err := s.manager(cluster).start(binary, all...)
	if err == nil && started {
		s.logf("%s: federation manager running (pid %d, log %s)", cluster, pid, s.ManagerLog(cluster))
	}
	return pid, err
}

// StopManager sends sig to a supervisor's federation manager and, for
// SIGTERM, waits for it to exit (SIGKILL after 10 s).
func (s *Sandbox) StopManager(cluster string, sig syscall.Signal) error {
	return s.manager(cluster).stop(sig)
}

// managerClusters lists the clusters with a manager pid file.
func (s *Sandbox) managerClusters() []string { return processNames(s.ManagerDir()) }
