package netnstest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// Outcome is what became of a connection attempt.
type Outcome string

const (
	// Connected: the TCP handshake completed, or a UDP datagram was echoed.
	Connected Outcome = "connected"
	// Refused: a TCP reset or an ICMP error came back at once (Reject).
	Refused Outcome = "refused"
	// Dropped: nothing came back, or the sender's own firewall dropped the
	// packet, which fails the send with EPERM (Drop).
	Dropped Outcome = "dropped"
)

// ProbeTCP connects from ns to address and says how it went. A connection
// that is made is closed after one echoed message.
func ProbeTCP(ns *NS, address string, timeout time.Duration) (Outcome, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	conn, err := ns.Dial(ctx, "tcp", address)
	if err != nil {
		return classify(err)
	}
	defer func() { _ = conn.Close() }()
	if err := Exchange(conn, "ping", timeout); err != nil {
		return "", fmt.Errorf("connected to %s but the echo failed: %w", address, err)
	}
	return Connected, nil
}

// ProbeUDP sends a datagram from ns to address and waits for its echo.
func ProbeUDP(ns *NS, address string, timeout time.Duration) (Outcome, error) {
	conn, err := ns.Dial(context.Background(), "udp", address)
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close() }()
	if err := Exchange(conn, "ping", timeout); err != nil {
		return classify(err)
	}
	return Connected, nil
}

// Exchange writes msg on conn and reads the echo back within timeout.
func Exchange(conn net.Conn, msg string, timeout time.Duration) error {
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	if _, err := conn.Write([]byte(msg)); err != nil {
		return err
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(conn, buf); err != nil {
		return err
	}
	if string(buf) != msg {
		return fmt.Errorf("echo %q, sent %q", buf, msg)
	}
	return nil
}

func classify(err error) (Outcome, error) {
	var nerr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EACCES):
		return Refused, nil
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout(), errors.Is(err, syscall.EPERM):
		return Dropped, nil
	}
	return "", err
}

// Echo serves TCP and UDP echo on addresses inside namespaces until
// Close.
type Echo struct {
	mu        sync.Mutex
	closed    bool
	listeners []io.Closer
	wg        sync.WaitGroup
}

// TCP echoes every TCP connection to address in ns.
func (e *Echo) TCP(ns *NS, address string) error {
	l, err := ns.Listen("tcp", address)
	if err != nil {
		return err
	}
	e.track(l)
	e.wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			e.track(c)
			e.wg.Go(func() { _, _ = io.Copy(c, c); _ = c.Close() })
		}
	})
	return nil
}

// UDP echoes every datagram to address in ns.
func (e *Echo) UDP(ns *NS, address string) error {
	pc, err := ns.ListenPacket("udp", address)
	if err != nil {
		return err
	}
	e.track(pc)
	e.wg.Go(func() {
		buf := make([]byte, 64<<10)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = pc.WriteTo(buf[:n], from)
		}
	})
	return nil
}

func (e *Echo) track(c io.Closer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		_ = c.Close()
		return
	}
	e.listeners = append(e.listeners, c)
}

// Close stops every listener and connection and waits for them.
func (e *Echo) Close() {
	e.mu.Lock()
	e.closed = true
	for _, c := range e.listeners {
		_ = c.Close()
	}
	e.listeners = nil
	e.mu.Unlock()
	e.wg.Wait()
}
