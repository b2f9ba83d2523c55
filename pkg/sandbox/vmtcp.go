package sandbox

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
)

// TCPServerOptions shape ServeTCP.
type TCPServerOptions struct {
	// Listen is the address to listen on, e.g. 0.0.0.0:8080.
	Listen string
	// NetNS, if set, is the network namespace to listen in; the process
	// itself (and Forward's connections) stay in their own.
	NetNS string
	// Forward, if set, is where every connection is relayed to; else
	// what a connection sends is echoed back.
	Forward string
	// Bound, if set, is called once the address is listened on.
	Bound func()
}

// ServeTCP serves until ctx ends: a VM's TCP listener (echo) or the relay
// that lets a VM's agent reach the policy controller on the host's
// loopback.
func ServeTCP(ctx context.Context, opts TCPServerOptions) error {
	l, err := listenIn(opts.NetNS, opts.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", opts.Listen, err)
	}
	if opts.Bound != nil {
		opts.Bound()
	}
	var (
		mu    sync.Mutex
		conns = map[net.Conn]bool{}
		wg    sync.WaitGroup
	)
	// Stopping cuts the connections too: a relayed agent's watch would
	// otherwise keep the process waiting.
	stop := context.AfterFunc(ctx, func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for c := range conns {
			_ = c.Close()
		}
	})
	defer stop()
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		mu.Lock()
		conns[c] = true
		mu.Unlock()
		if ctx.Err() != nil {
			_ = c.Close()
		}
		wg.Go(func() {
			defer func() {
				_ = c.Close()
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
			}()
			if opts.Forward == "" {
				_, _ = io.Copy(c, c)
				return
			}
			relay(ctx, c, opts.Forward)
		})
	}
}

// relay copies between in and a new connection to address until either
// direction ends (the caller then closes in, which ends the other).
func relay(ctx context.Context, in net.Conn, address string) {
	out, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", address)
	if err != nil {
		return
	}
	defer func() { _ = out.Close() }()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(out, in); done <- struct{}{} }()
	go func() { _, _ = io.Copy(in, out); done <- struct{}{} }()
	<-done
}

// ProbeResult is one probe.
type ProbeResult struct {
	From AgentVM `json:"from"`
	// To is the address connected to; ToVM the VM that has it, if any.
	To      string        `json:"to"`
	ToVM    string        `json:"toVM,omitempty"`
	Outcome netns.Outcome `json:"outcome"`
}

// Probe opens a TCP connection from the namespace of the VM called from to
// to, "IP:port" or "VM:port" (a VM of the sandbox), and echoes a message.
func (s *Sandbox) Probe(ctx context.Context, from, to string, timeout time.Duration) (ProbeResult, error) {
	if err := netns.Check(); err != nil {
		return ProbeResult{}, fmt.Errorf("probe enters a VM's network namespace: %w", err)
	}
	vms, err := s.AgentVMs()
	if err != nil {
		return ProbeResult{}, err
	}
	src, ok := findVM(vms, from)
	if !ok {
		return ProbeResult{}, fmt.Errorf("no VM %q in the sandbox (it has %s)", from, vmNames(vms))
	}
	host, port, err := net.SplitHostPort(to)
	if err != nil {
		return ProbeResult{}, fmt.Errorf("--to %q: want IP:port or VM:port", to)
	}
	toVM := ""
	if dst, ok := findVM(vms, host); ok {
		host, toVM = dst.IP, dst.Name
	} else if dst, ok := findVMByIP(vms, host); ok {
		toVM = dst.Name
	} else if net.ParseIP(host) == nil {
		return ProbeResult{}, fmt.Errorf("--to %q: %s is neither an IP nor a VM of the sandbox (%s)", to, host, vmNames(vms))
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return ProbeResult{}, fmt.Errorf("--to %q: bad port", to)
	}
	res := ProbeResult{From: src, To: net.JoinHostPort(host, port), ToVM: toVM}
	ns, err := netns.Open(src.NetNS)
	if err != nil {
		return res, fmt.Errorf("VM %s: %w", src.Name, err)
	}
	defer func() { _ = ns.Close() }()
	res.Outcome, err = netns.ProbeTCP(ctx, ns, res.To, timeout)
	return res, err
}
