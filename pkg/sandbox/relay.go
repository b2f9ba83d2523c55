package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
)

// RelayPair is one relayed address: what is listened on and where each
// connection (or UDP exchange) goes.
type RelayPair struct {
	Listen, Forward string
}

// ParseRelayPair reads "LISTEN=FORWARD", e.g. "10.96.0.1:443=127.0.0.1:16443".
func ParseRelayPair(s string) (RelayPair, error) {
	listen, forward, ok := strings.Cut(s, "=")
	if !ok || listen == "" || forward == "" {
		return RelayPair{}, fmt.Errorf("relay %q: want LISTEN=FORWARD, e.g. 10.96.0.1:443=127.0.0.1:16443", s)
	}
	return RelayPair{Listen: listen, Forward: forward}, nil
}

func (p RelayPair) String() string { return p.Listen + "=" + p.Forward }

// RelayOptions say what a relay process relays.
type RelayOptions struct {
	// NetNS, if set, is the network namespace the relay listens in; it
	// forwards from its own.
	NetNS string
	TCP   []RelayPair
	UDP   []RelayPair
	// ReadyFile, if set, is created once every pair is listened on: who
	// started the relay waits for it before starting what connects
	// through it (WaitRelayReady).
	ReadyFile string
}

// Relay serves every pair until ctx ends. The as-installed sandbox plays
// what kube-proxy and a load balancer do with it: in a Pod's namespace, a
// Service's ClusterIP relayed to its endpoint or to the API server; on the
// host, the DNS and distribution Services at the addresses VMs and the
// demo use.
func Relay(ctx context.Context, opts RelayOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(opts.TCP)+len(opts.UDP))
	var wg, bound sync.WaitGroup
	var failed atomic.Bool
	serve := func(run func(bound func()) error) {
		bound.Add(1)
		once := sync.OnceFunc(bound.Done)
		wg.Go(func() {
			err := run(once)
			if err != nil {
				failed.Store(true)
			}
			once() // a pair that could not listen is done too: the relay fails
			errs <- err
		})
	}
	for _, p := range opts.TCP {
		serve(func(b func()) error {
			return ServeTCP(ctx, TCPServerOptions{Listen: p.Listen, NetNS: opts.NetNS, Forward: p.Forward, Bound: b})
		})
	}
	for _, p := range opts.UDP {
		serve(func(b func()) error { return serveUDP(ctx, opts.NetNS, p, b) })
	}
	if opts.ReadyFile != "" {
		wg.Go(func() {
			bound.Wait()
			if !failed.Load() && ctx.Err() == nil {
				if err := os.WriteFile(opts.ReadyFile, nil, 0o644); err != nil {
					errs <- fmt.Errorf("writing the ready file: %w", err)
				}
			}
		})
	}
	var first error
	select {
	case first = <-errs: // one failed (or ctx ended): stop the others
	case <-ctx.Done():
	}
	cancel()
	wg.Wait()
	return first
}

// WaitRelayReady waits until the relay started with readyFile listens on
// every pair, at most timeout, while alive says it runs. Whatever connects
// through a relay starts only then: a Pod's controller started beside a
// relay still binding its Service addresses meets "connection refused"
// (seen on a machine at load 20-39) and exits.
func WaitRelayReady(ctx context.Context, readyFile string, timeout time.Duration, alive func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(readyFile); err == nil {
			return nil
		}
		if !alive() {
			return errors.New("the relay exited before it listened on every address")
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the relay did not listen on every address within %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// udpIdle is how long a UDP client's exchange is kept without traffic.
const udpIdle = 30 * time.Second

// serveUDP relays datagrams to p.Forward, a socket per client address, and
// the replies back.
func serveUDP(ctx context.Context, ns string, p RelayPair, bound func()) error {
	var (
		pc  net.PacketConn
		err error
	)
	if ns == "" {
		pc, err = net.ListenPacket("udp", p.Listen)
	} else {
		var n *netns.NS
		if n, err = netns.Open(ns); err == nil {
			pc, err = n.ListenPacket("udp", p.Listen)
			_ = n.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("listening on udp %s: %w", p.Listen, err)
	}
	bound()
	stop := context.AfterFunc(ctx, func() { _ = pc.Close() })
	defer stop()
	var mu sync.Mutex
	clients := map[string]net.Conn{}
	buf := make([]byte, 64<<10)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		mu.Lock()
		out, ok := clients[from.String()]
		if !ok {
			out, err = net.Dial("udp", p.Forward)
			if err != nil {
				mu.Unlock()
				continue
			}
			clients[from.String()] = out
			go func() { // replies, until the client is idle
				defer func() {
					mu.Lock()
					delete(clients, from.String())
					mu.Unlock()
					_ = out.Close()
				}()
				reply := make([]byte, 64<<10)
				for {
					_ = out.SetReadDeadline(time.Now().Add(udpIdle))
					m, err := out.Read(reply)
					if err != nil {
						return
					}
					_, _ = pc.WriteTo(reply[:m], from)
				}
			}()
		}
		mu.Unlock()
		_, _ = out.Write(buf[:n])
	}
}
