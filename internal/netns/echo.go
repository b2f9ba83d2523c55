package netns

import (
	"io"
	"sync"
)

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
