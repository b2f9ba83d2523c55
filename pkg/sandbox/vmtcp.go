package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
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
}

// ServeTCP serves until ctx ends: a VM's TCP listener (echo) or the relay
// that lets a VM's agent reach the policy controller on the host's
// loopback.
func ServeTCP(ctx context.Context, opts TCPServerOptions) error {
	l, err := listenIn(opts.NetNS, opts.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", opts.Listen, err)
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

// ProbeOutcome is what became of a probe's connection.
type ProbeOutcome string

const (
	// ProbeConnected: the connection was made and a message echoed.
	ProbeConnected ProbeOutcome = "connected"
	// ProbeRefused: a reset or an ICMP error came back (a Reject rule).
	ProbeRefused ProbeOutcome = "refused"
	// ProbeDropped: nothing came back in time, or the sender's own
	// firewall refused to send (a Drop rule).
	ProbeDropped ProbeOutcome = "dropped"
)

// Blocked is true for refused and dropped.
func (o ProbeOutcome) Blocked() bool { return o != ProbeConnected }

// ProbeResult is one probe.
type ProbeResult struct {
	From AgentVM `json:"from"`
	// To is the address connected to; ToVM the VM that has it, if any.
	To      string       `json:"to"`
	ToVM    string       `json:"toVM,omitempty"`
	Outcome ProbeOutcome `json:"outcome"`
}

// Probe opens a TCP connection from the namespace of the VM called from to
// to, "IP:port" or "VM:port" (a VM of the sandbox), and echoes a message.
func (s *Sandbox) Probe(ctx context.Context, from, to string, timeout time.Duration) (ProbeResult, error) {
	if os.Geteuid() != 0 {
		return ProbeResult{}, errors.New("probe enters a VM's network namespace, which needs root: run it with sudo")
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
	res.Outcome, err = probeTCP(ctx, src.NetNS, res.To, timeout)
	return res, err
}

func probeTCP(ctx context.Context, netns, address string, timeout time.Duration) (ProbeOutcome, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var conn net.Conn
	err := inNetNS(netns, func() error {
		var err error
		conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", address)
		return err
	})
	if err != nil {
		return classifyProbe(err)
	}
	defer func() { _ = conn.Close() }()
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return "", err
	}
	const msg = "ping\n"
	if _, err := conn.Write([]byte(msg)); err != nil {
		return classifyProbe(err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(conn, buf); err != nil {
		return "", fmt.Errorf("connected to %s but nothing was echoed: %w", address, err)
	}
	return ProbeConnected, nil
}

func classifyProbe(err error) (ProbeOutcome, error) {
	var nerr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EACCES):
		return ProbeRefused, nil
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout(), errors.Is(err, syscall.EPERM):
		return ProbeDropped, nil
	}
	return "", err
}
