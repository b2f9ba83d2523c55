package sandbox

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// freeAddr is a loopback address nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// TestRelayReadyFile: the ready file appears only once every pair is
// listened on, and a connection made then is relayed.
func TestRelayReadyFile(t *testing.T) {
	backend, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = backend.Close() }()
	go func() {
		for {
			c, err := backend.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = c.Close() }()
				line, _ := bufio.NewReader(c).ReadString('\n')
				_, _ = c.Write([]byte("echo " + line))
			}()
		}
	}()
	ready := filepath.Join(t.TempDir(), "ready")
	listen := freeAddr(t)
	done := make(chan error, 1)
	ctx := t.Context()
	go func() {
		done <- Relay(ctx, RelayOptions{TCP: []RelayPair{{Listen: listen, Forward: backend.Addr().String()}}, ReadyFile: ready})
	}()
	if err := WaitRelayReady(ctx, ready, 10*time.Second, func() bool { return len(done) == 0 }); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", listen) // no retry: listening is what ready means
	if err != nil {
		t.Fatalf("connecting once ready: %v", err)
	}
	defer func() { _ = c.Close() }()
	_, _ = c.Write([]byte("hi\n"))
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || got != "echo hi\n" {
		t.Fatalf("relayed %q, %v; want %q", got, err, "echo hi\n")
	}
}

// TestRelayNotReadyWhenAPairFails: an address already in use fails the
// relay, and no ready file is written.
func TestRelayNotReadyWhenAPairFails(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = taken.Close() }()
	ready := filepath.Join(t.TempDir(), "ready")
	err = Relay(t.Context(), RelayOptions{TCP: []RelayPair{
		{Listen: freeAddr(t), Forward: "127.0.0.1:1"},
		{Listen: taken.Addr().String(), Forward: "127.0.0.1:1"},
	}, ReadyFile: ready})
	if err == nil || !strings.Contains(err.Error(), "listening on") {
		t.Fatalf("Relay: %v; want a listening error", err)
	}
	if _, err := os.Stat(ready); err == nil {
		t.Fatal("the ready file was written although a pair could not listen")
	}
	werr := WaitRelayReady(t.Context(), ready, time.Second, func() bool { return false })
	if werr == nil || !strings.Contains(werr.Error(), "exited before") {
		t.Fatalf("WaitRelayReady: %v", werr)
	}
}
