package framework

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// TCPProxy forwards TCP connections to a target address until it is cut:
// tests put it between one supervisor and one member to sever that path alone.
type TCPProxy struct {
	target string
	addr   string

	mu    sync.Mutex
	l     net.Listener // nil while refusing
	cut   bool
	conns map[net.Conn]bool
}

// NewTCPProxy listens on a free loopback port and forwards to target.
func NewTCPProxy(target string) (*TCPProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &TCPProxy{target: target, addr: l.Addr().String(), l: l, conns: map[net.Conn]bool{}}
	go p.serve(l)
	return p, nil
}

// Addr is the proxy's host:port.
func (p *TCPProxy) Addr() string { return p.addr }

// Refuse stops listening and resets the open connections: clients get
// "connection refused", as from a server that died.
func (p *TCPProxy) Refuse() {
	p.Cut()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l != nil {
		_ = p.l.Close()
		p.l = nil
	}
}

// Cut refuses new connections and resets the open ones.
func (p *TCPProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		_ = c.Close()
	}
}

// Restore forwards again (listening on the same address after Refuse).
func (p *TCPProxy) Restore() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
	if p.l == nil {
		l, err := net.Listen("tcp", p.addr)
		if err != nil {
			return err
		}
		p.l = l
		go p.serve(l)
	}
	return nil
}

// Close stops the proxy.
func (p *TCPProxy) Close() error {
	p.Refuse()
	return nil
}

func (p *TCPProxy) serve(l net.Listener) {
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut {
			_ = in.Close()
			continue
		}
		go p.forward(in)
	}
}

func (p *TCPProxy) forward(in net.Conn) {
	out, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = in.Close()
		return
	}
	p.mu.Lock()
	p.conns[in], p.conns[out] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(out, in)
	go pipe(in, out)
	<-done
	_ = in.Close()
	_ = out.Close()
	p.mu.Lock()
	delete(p.conns, in)
	delete(p.conns, out)
	p.mu.Unlock()
}

// ProxyServer starts a TCPProxy in front of the API server at serverURL
// (an https://host:port URL, as in a kubeconfig or a rest.Config's Host),
// closed when the test ends, and returns it with the URL that goes through it.
func ProxyServer(t testing.TB, serverURL string) (*TCPProxy, string) {
	t.Helper()
	server, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := NewTCPProxy(server.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	server.Host = proxy.Addr()
	return proxy, server.String()
}
