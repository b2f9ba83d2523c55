package vmagent

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
)

// process is a program the test started; it is killed when the test ends.
type process struct {
	name, log string
	cmd       *exec.Cmd
	done      chan struct{}
}

// startProcess starts cmd with its output appended to log.
func startProcess(t *testing.T, name, log string, cmd *exec.Cmd) *process {
	t.Helper()
	out, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Close() }()
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p := &process{name: name, log: log, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(p.kill)
	return p
}

// running reports whether the process has not exited.
func (p *process) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// kill stops the process at once (SIGKILL, as a crash), and waits for it.
func (p *process) kill() {
	if p.running() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
	}
}

// tail returns the last n lines of the process's log.
func (p *process) tail(n int) string {
	raw, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// httpClient is an HTTP client whose connections start inside ns and that
// trusts the controller's CA (once it exists), presenting token if set.
func (l *lab) httpClient(ns *netns.NS, token string) *http.Client {
	pool := x509.NewCertPool()
	if pem, err := os.ReadFile(filepath.Join(l.certDir(), "ca.crt")); err == nil {
		pool.AppendCertsFromPEM(pem)
	}
	var rt http.RoundTripper = &http.Transport{
		DialContext:       ns.Dial,
		TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
	}
	if token != "" {
		rt = bearer{token: token, next: rt}
	}
	return &http.Client{Transport: rt, Timeout: 10 * time.Second}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
