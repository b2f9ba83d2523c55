package netns

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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

// Blocked is true for refused and dropped.
func (o Outcome) Blocked() bool { return o != Connected }

// ProbeTCP connects from ns to address, within timeout, and says how it
// went. A connection that is made is closed after one echoed message.
func ProbeTCP(ctx context.Context, ns *NS, address string, timeout time.Duration) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
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

// ProbeUDP sends a datagram from ns to address and waits timeout for its
// echo.
func ProbeUDP(ctx context.Context, ns *NS, address string, timeout time.Duration) (Outcome, error) {
	conn, err := ns.Dial(ctx, "udp", address)
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
