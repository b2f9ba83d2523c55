package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a program the bench started: it is killed when the bench ends,
// and with the bench if the bench is killed (parent-death signal).
type proc struct {
	name, log string
	cmd       *exec.Cmd
	done      chan struct{}
}

// procs are every program the bench started, in order.
type procs struct {
	mu   sync.Mutex
	list []*proc
}

// start runs cmd with its output appended to log.
func (ps *procs) start(name, log string, cmd *exec.Cmd) (*proc, error) {
	out, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer func() { _ = out.Close() }()
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group (a Ctrl-C reaches the bench, which stops it),
	// and SIGKILL if the bench dies without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, log: log, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	ps.mu.Lock()
	ps.list = append(ps.list, p)
	ps.mu.Unlock()
	// A program that exits at once (bad flags, address in use) is reported here.
	select {
	case <-p.done:
		return nil, fmt.Errorf("%s exited at once:\n%s", name, p.tail(20))
	case <-time.After(300 * time.Millisecond):
	}
	return p, nil
}

// running reports whether the process has not exited.
func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// kill stops the process (SIGKILL) and waits for it, 10 s at most.
func (p *proc) kill() {
	if p.running() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		fmt.Fprintf(os.Stderr, "fedpolicybench: %s (pid %d) did not exit after SIGKILL\n", p.name, p.cmd.Process.Pid)
	}
}

// tail returns the last n lines of the process's log.
func (p *proc) tail(n int) string {
	raw, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// stopAll kills every process, the last started first.
func (ps *procs) stopAll() {
	ps.mu.Lock()
	list := ps.list
	ps.list = nil
	ps.mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		list[i].kill()
	}
}

// dead names the processes that exited, with the end of their logs.
func (ps *procs) dead() string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []string
	for _, p := range ps.list {
		if !p.running() {
			out = append(out, fmt.Sprintf("%s exited (%v):\n%s", p.name, p.cmd.ProcessState, p.tail(15)))
		}
	}
	return strings.Join(out, "\n")
}

// cleanup runs clean-up functions once, the last added first, whether the
// run ends, fails or is interrupted.
type cleanup struct {
	once sync.Once
	mu   sync.Mutex
	fns  []func()
}

func (c *cleanup) add(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fns = append(c.fns, f)
}

func (c *cleanup) run() {
	c.once.Do(func() {
		c.mu.Lock()
		fns := c.fns
		c.fns = nil
		c.mu.Unlock()
		for i := len(fns) - 1; i >= 0; i-- {
			fns[i]()
		}
	})
}

// errText is err's message for a report of what was last seen, or "none".
func errText(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}
