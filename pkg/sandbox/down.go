package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"antreaplus.io/antreaplus/pkg/toolchain"
)

// Down stops every cluster of the sandbox, makes sure none of their
// processes is left, and removes the sandbox directory.
func (s *Sandbox) Down(ctx context.Context) error {
	// First, and even without a directory: namespaces outlive a lost one.
	vmErr := s.stopVMAgents()
	names := s.clusterNames()
	if len(names) == 0 && !dirExists(s.opts.Dir) {
		s.logf("No sandbox in %s.", s.opts.Dir)
		return vmErr
	}
	var tools toolchain.Toolchain
	if s.opts.Tools != nil {
		tools = *s.opts.Tools
	} else {
		tools = toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	}
	errs := []error{vmErr}
	if err := s.stopPods(); err != nil {
		errs = append(errs, err)
	}
	if err := s.stopMemberServices(); err != nil {
		errs = append(errs, err)
	}
	if err := s.stopExternalDNS(); err != nil {
		errs = append(errs, err)
	}
	if err := s.stopCloud(); err != nil {
		errs = append(errs, err)
	}
	for _, name := range s.managerClusters() {
		if err := s.StopManager(name, syscall.SIGTERM); err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range names {
		pids := s.pids(name)
		if len(tools.Missing("kwokctl")) == 0 {
			if err := s.kwokctl(ctx, tools, "delete", "cluster", "--name", name); err != nil {
				s.logf("%s: kwokctl could not delete it (%v); stopping its processes directly", name, err)
			}
		}
		if err := killAll(pids); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		s.logf("%s: stopped", name)
	}
	// A component no pid file names any more (e.g. one a restart replaced
	// while it was still shutting down) runs a binary or a file of the
	// sandbox directory: none may outlive it.
	if left := processesUnder(s.opts.Dir); len(left) > 0 {
		s.logf("Stopping %d leftover process(es) of the sandbox: %v", len(left), left)
		if err := killAll(left); err != nil {
			errs = append(errs, err)
		}
	}
	// The kernel may hold a dead server's port for a moment while its
	// connections close: down returns once every port is free again.
	if st, err := s.LoadState(); err == nil {
		for _, p := range st.Clusters {
			if err := waitPortsFree(ctx, p, 15*time.Second); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", p.Name, err))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := os.RemoveAll(s.opts.Dir); err != nil {
		return fmt.Errorf("removing %s: %w", s.opts.Dir, err)
	}
	s.logf("Sandbox removed (%s).", s.opts.Dir)
	return nil
}

// clusterNames lists the clusters recorded in the state or found on disk.
func (s *Sandbox) clusterNames() []string {
	seen := map[string]bool{}
	var names []string
	if st, err := s.LoadState(); err == nil {
		for _, c := range st.Clusters {
			seen[c.Name] = true
			names = append(names, c.Name)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(s.kwokDir(), "clusters", "*"))
	for _, d := range dirs {
		if n := filepath.Base(d); !seen[n] && dirExists(d) {
			names = append(names, n)
		}
	}
	return names
}

// pids returns the process ids kwokctl recorded for a cluster's components.
func (s *Sandbox) pids(name string) []int {
	var pids []int
	for _, pid := range s.componentPids(name) {
		pids = append(pids, pid)
	}
	return pids
}

// componentPids reads kwokctl's pid files of a cluster: component name to pid.
func (s *Sandbox) componentPids(name string) map[string]int {
	files, _ := filepath.Glob(filepath.Join(s.ClusterDir(name), "pids", "*.pid"))
	pids := map[string]int{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil && pid > 1 {
			pids[strings.TrimSuffix(filepath.Base(f), ".pid")] = pid
		}
	}
	return pids
}

// deadComponents names the cluster's components whose process has exited.
func (s *Sandbox) deadComponents(name string) []string {
	var dead []string
	for c, pid := range s.componentPids(name) {
		if !Alive(pid) {
			dead = append(dead, c)
		}
	}
	sort.Strings(dead)
	return dead
}

// killWait is how long killed processes may take to be gone.
const killWait = 10 * time.Second

// killAll ends the given processes: SIGTERM, then SIGKILL after 5 s, and
// waits for them to be gone.
func killAll(pids []int) error {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if Alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	// A killed process still has to be scheduled to exit and free its
	// memory: on a loaded machine that takes more than a moment.
	var left []string
	for deadline := time.Now().Add(killWait); ; time.Sleep(50 * time.Millisecond) {
		left = left[:0]
		for _, pid := range pids {
			if Alive(pid) {
				left = append(left, strconv.Itoa(pid))
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("processes %s survived SIGKILL", strings.Join(left, ", "))
	}
	return nil
}

// Alive reports whether a process exists and is not a zombie (a component whose
// parent is gone may linger as one until it is reaped).
func Alive(pid int) bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// processesUnder lists the live processes whose executable (argv[0]) lies
// under dir, other than this one: kwokctl runs each component from a copy
// under the sandbox directory.
func processesUnder(dir string) []int {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	prefix := []byte(filepath.Clean(abs) + "/")
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		argv0, _, _ := bytes.Cut(cmdline, []byte{0})
		if err == nil && bytes.HasPrefix(argv0, prefix) && Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}
