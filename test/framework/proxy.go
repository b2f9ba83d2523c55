package framework

import (
	"io"
	"net"
	"sync"
)

// TCPProxy forwards TCP connections to a target address until it is cut:
// tests put it between one supervisor and one member to sever that path alone.
type TCPProxy struct {
	target string
	l      net.Listener

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]bool
}

// NewTCPProxy listens on a free loopback port and forwards to target.
func NewTCPProxy(target string) (*TCPProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &TCPProxy{target: target, l: l, conns: map[net.Conn]bool{}}
	go p.serve()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *TCPProxy) Addr() string { return p.l.Addr().String() }

// Cut refuses new connections and resets the open ones.
func (p *TCPProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		_ = c.Close()
	}
}

// Restore forwards again.
func (p *TCPProxy) Restore() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}

// Close stops the proxy.
func (p *TCPProxy) Close() error {
	p.Cut()
	return p.l.Close()
}

func (p *TCPProxy) serve() {
	for {
		in, err := p.l.Accept()
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
