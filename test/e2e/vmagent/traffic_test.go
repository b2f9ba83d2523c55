package vmagent

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
)

const (
	connected = netns.Connected
	refused   = netns.Refused
	dropped   = netns.Dropped
)

// flow is a connection attempt and what must become of it.
type flow struct {
	from, to *vm
	udp      bool
	port     int
	want     netns.Outcome
}

func tcpFlow(from, to *vm, port int, want netns.Outcome) flow {
	return flow{from: from, to: to, port: port, want: want}
}

func udpFlow(from, to *vm, port int, want netns.Outcome) flow {
	return flow{from: from, to: to, udp: true, port: port, want: want}
}

func (f flow) String() string {
	proto := "tcp"
	if f.udp {
		proto = "udp"
	}
	return fmt.Sprintf("%s %s -> %s:%d", proto, f.from.name, f.to.name, f.port)
}

// probeTimeout is how long a dropped connection is waited for.
const probeTimeout = 1500 * time.Millisecond

// try runs every flow once, in parallel, and returns the mismatches.
func try(ctx context.Context, flows []flow) []string {
	out := make([]string, len(flows))
	var wg sync.WaitGroup
	for i, f := range flows {
		wg.Go(func() {
			addr := net.JoinHostPort(f.to.ip, strconv.Itoa(f.port))
			probe := netns.ProbeTCP
			if f.udp {
				probe = netns.ProbeUDP
			}
			got, err := probe(ctx, f.from.ns, addr, probeTimeout)
			if err != nil || got != f.want {
				out[i] = fmt.Sprintf("%s: %s (%v), want %s", f, got, err, f.want)
			}
		})
	}
	wg.Wait()
	var mismatches []string
	for _, m := range out {
		if m != "" {
			mismatches = append(mismatches, m)
		}
	}
	return mismatches
}

// expectFlows waits until every flow behaves as wanted, trying them all
// again until timeout: rules take a moment to reach the agents.
func expectFlows(t *testing.T, timeout time.Duration, flows ...flow) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		mismatches := try(t.Context(), flows)
		if len(mismatches) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("traffic not as the policies say after %s:\n  %s", timeout, strings.Join(mismatches, "\n  "))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// expectFlowsNow checks flows once: the rules must already be in force.
func expectFlowsNow(t *testing.T, flows ...flow) {
	t.Helper()
	if mismatches := try(t.Context(), flows); len(mismatches) > 0 {
		t.Fatalf("traffic not as the policies say:\n  %s", strings.Join(mismatches, "\n  "))
	}
}
