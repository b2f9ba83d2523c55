package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/vmagent"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

// The counters' lab: a client namespace (10.78.0.1) linked to a server
// namespace (10.78.0.2) whose agent table holds tableRules ingress rules;
// the connections are allowed by the last, so that each one's first
// packet is evaluated against every rule, as on a VM with a large policy.
const (
	tableRules = 1000
	clientIP   = "10.78.0.1"
	serverIP   = "10.78.0.2"
	serverPort = 9000
)

// benchCounters measures the machine's CPU per connection through the
// table with counters and without, interleaved, and the agent's read of
// the counters of the whole table.
func benchCounters(ctx context.Context, rate int, length time.Duration, runs int) ([]benchtable.Figure, error) {
	if err := netns.Check("nft"); err != nil {
		return nil, fmt.Errorf("-counters plays a VM in a network namespace: %w", err)
	}
	prefix := fmt.Sprintf("aptb-%d-", os.Getpid())
	netns.ReapOrphans("aptb-")
	server, err := netns.Create(prefix + "s")
	if err != nil {
		return nil, err
	}
	defer func() { _ = server.Delete() }()
	client, err := netns.Create(prefix + "c")
	if err != nil {
		return nil, err
	}
	defer func() { _ = client.Delete() }()
	for _, step := range []func() error{
		func() error { return server.Veth("eth0", client, "eth0") },
		func() error { return server.AddAddress("eth0", serverIP+"/24") },
		func() error { return client.AddAddress("eth0", clientIP+"/24") },
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	stopServer, err := acceptLoop(server)
	if err != nil {
		return nil, err
	}
	defer stopServer()
	view := largeTable()
	var with, without, withRate, withoutRate []float64
	var reads []float64
	for run := range 2 * runs {
		counting := run%2 == 0
		fw := &vmagent.NFTables{NetNSFd: server.Fd(), NoCounters: !counting}
		if _, err := fw.Apply(view); err != nil {
			return nil, fmt.Errorf("applying %d rules: %w", tableRules, err)
		}
		perConn, achieved, err := stream(ctx, client, rate, length)
		if err != nil {
			return nil, err
		}
		if counting {
			with, withRate = append(with, perConn), append(withRate, achieved)
			counts, err := fw.Counters()
			if err != nil {
				return nil, err
			}
			if n := allowedSYNs(counts); float64(n) < achieved*length.Seconds()*0.99 {
				return nil, fmt.Errorf("the allowing rule counted %d connections, %.0f were made", n, achieved*length.Seconds())
			}
			for range 10 {
				start := time.Now()
				if _, err := fw.Counters(); err != nil {
					return nil, err
				}
				reads = append(reads, ms(time.Since(start)))
			}
		} else {
			without, withoutRate = append(without, perConn), append(withoutRate, achieved)
		}
		logf("stream %d (counters %v): %.0f connections/s, %.1f µs of CPU each", run+1, counting, achieved, perConn)
	}
	return []benchtable.Figure{
		benchtable.Summarize(fmt.Sprintf("CPU per new connection, %d rules with counters", tableRules), "µs", with),
		benchtable.Summarize("  baseline: the same rules without counters", "µs", without),
		benchtable.Summarize("  ratio", "x", benchtable.Ratios(with, without)),
		benchtable.Summarize("  connections per second achieved, with counters", "conn/s", withRate),
		benchtable.Summarize("  connections per second achieved, without", "conn/s", withoutRate),
		benchtable.Summarize(fmt.Sprintf("agent: reading the counters of %d rules", tableRules), "ms", reads),
	}, nil
}

// largeTable is one endpoint (the server) with tableRules ingress rules of
// the application tier: the first tableRules-1 allow other ports from
// other peers, the last allows the server port from the client.
func largeTable() *wire.View {
	ep := &wire.Endpoint{Name: "bench/server", Addresses: []netip.Addr{netip.MustParseAddr(serverIP)}, Rules: map[wire.RuleID]wire.Rule{}}
	for i := range tableRules {
		r := wire.Rule{Direction: policyrules.DirectionIngress, Action: policyrules.ActionAllow, Tier: "application", TierPriority: 250,
			Policy:    wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "bench", Name: "p" + strconv.Itoa(i)},
			RuleIndex: 0, Name: "r" + strconv.Itoa(i), PolicyPriority: float64(i)}
		if i == tableRules-1 {
			r.Peers = []netip.Prefix{netip.MustParsePrefix(clientIP + "/32")}
			r.Ports = []wire.Port{{Protocol: policyrules.ProtocolTCP, Port: serverPort, EndPort: serverPort}}
		} else {
			r.Peers = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 30, byte(i / 250), byte(i%250 + 1)}), 32)}
			r.Ports = []wire.Port{{Protocol: policyrules.ProtocolTCP, Port: int32(10000 + i), EndPort: int32(10000 + i)}}
		}
		id := r.ID()
		ep.Order = append(ep.Order, id)
		ep.Rules[id] = r
	}
	return &wire.View{Epoch: "bench", Generation: 1, Endpoints: map[string]*wire.Endpoint{ep.Name: ep}}
}

// allowedSYNs is the count of the rule that allows the connections.
func allowedSYNs(counts vmagent.RuleCounts) uint64 {
	for k, c := range counts {
		if k.Policy.Name == "p"+strconv.Itoa(tableRules-1) {
			return c.Packets
		}
	}
	return 0
}

// acceptLoop accepts and closes connections on the server port, on a
// thread inside the server namespace, until stopped.
func acceptLoop(ns *netns.NS) (func(), error) {
	ready := make(chan error, 1)
	done := make(chan struct{})
	var fd int
	go func() {
		defer close(done)
		_ = ns.Do(func() error {
			var err error
			fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err == nil {
				_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
				err = unix.Bind(fd, &unix.SockaddrInet4{Port: serverPort, Addr: netip.MustParseAddr(serverIP).As4()})
			}
			if err == nil {
				err = unix.Listen(fd, 4096)
			}
			ready <- err
			if err != nil {
				return err
			}
			for {
				c, _, err := unix.Accept4(fd, unix.SOCK_CLOEXEC)
				if err != nil {
					if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ECONNABORTED) {
						continue
					}
					return nil // shut down
				}
				_ = unix.Close(c)
			}
		})
	}()
	if err := <-ready; err != nil {
		return nil, fmt.Errorf("listening in %s: %w", ns.Name, err)
	}
	return func() {
		_ = unix.Shutdown(fd, unix.SHUT_RDWR)
		<-done
		_ = unix.Close(fd)
	}, nil
}

// stream makes new connections from the client namespace at rate per
// second for length, from two threads (in batches every 10 ms; each
// connection closed at once with a reset, so that no TIME_WAIT exhausts
// the ports), and returns the machine's CPU time per connection in µs and
// the rate achieved.
func stream(ctx context.Context, client *netns.NS, rate int, length time.Duration) (float64, float64, error) {
	const workers = 2
	busy0, err := busyJiffies()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	made := make([]int, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { made[w], errs[w] = connect(ctx, client, rate/workers, start, length) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return 0, 0, err
	}
	busy1, err := busyJiffies()
	if err != nil {
		return 0, 0, err
	}
	total := 0
	for _, n := range made {
		total += n
	}
	cpu := float64(busy1-busy0) / float64(clockTicks) // seconds
	return cpu * 1e6 / float64(total), float64(total) / elapsed.Seconds(), nil
}

// connect makes connections at rate per second until length after start,
// on a thread inside the namespace, and returns how many.
func connect(ctx context.Context, client *netns.NS, rate int, start time.Time, length time.Duration) (int, error) {
	const tick = 10 * time.Millisecond
	batch := max(1, rate*int(tick)/int(time.Second))
	addr := &unix.SockaddrInet4{Port: serverPort, Addr: netip.MustParseAddr(serverIP).As4()}
	made := 0
	err := client.Do(func() error {
		next := start
		for time.Since(start) < length {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			for range batch {
				fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
				if err != nil {
					return err
				}
				_ = unix.SetsockoptLinger(fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
				err = unix.Connect(fd, addr)
				_ = unix.Close(fd)
				if err != nil {
					return fmt.Errorf("connection %d: %w", made+1, err)
				}
				made++
			}
			next = next.Add(tick)
			time.Sleep(time.Until(next))
		}
		return nil
	})
	return made, err
}

// clockTicks is USER_HZ, the unit of /proc/stat.
const clockTicks = 100

// busyJiffies is the machine's CPU time spent other than idle, from
// /proc/stat: user, nice, system, irq, softirq and steal.
func busyJiffies() (uint64, error) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat begins %q", line)
	}
	var busy uint64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, err
		}
		busy += n
	}
	return busy, nil
}
