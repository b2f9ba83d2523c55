package fedpolicy

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/internal/netns"
	"antreaplus.io/antreaplus/test/framework"
)

// Outcomes of a probe: connected (allowed) or dropped (a Drop rule).
const (
	connected = netns.Connected
	dropped   = netns.Dropped
)

// probeTimeout is how long a probe waits for an answer before it calls
// the connection dropped: on one bridge an allowed connection answers in a
// millisecond, but a loaded machine may be slow to schedule the listener,
// so a probe that should connect waits longer.
func probeTimeout(want netns.Outcome) time.Duration {
	if want == connected {
		return 3 * time.Second
	}
	return time.Second
}

// probe opens a real TCP connection from a VM's namespace to "VM:port"
// or "IP:port" and says what became of it.
func probe(t testing.TB, from, to string, want netns.Outcome) netns.Outcome {
	t.Helper()
	res, err := sbx.sb.Probe(t.Context(), from, to, probeTimeout(want))
	if err != nil {
		t.Fatalf("probe %s -> %s: %v", from, to, err)
	}
	return res.Outcome
}

// expectProbe checks a probe's outcome now.
func expectProbe(t testing.TB, from, to string, want netns.Outcome) {
	t.Helper()
	if got := probe(t, from, to, want); got != want {
		t.Fatalf("%s -> %s: %s, want %s\n%s", from, to, got, want, rulesOf(t, from, to))
	}
	t.Logf("%s -> %s: %s", from, to, want)
}

// waitProbe waits until a probe has the outcome wanted, within timeout.
func waitProbe(t testing.TB, from, to string, want netns.Outcome, timeout time.Duration) {
	t.Helper()
	start := time.Now()
	var got netns.Outcome
	deadline := start.Add(timeout)
	for {
		if got = probe(t, from, to, want); got == want {
			t.Logf("%s -> %s: %s (after %s)", from, to, want, time.Since(start).Round(10*time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s -> %s is still %s after %s, want %s\n%s", from, to, got, timeout, want, rulesOf(t, from, to))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// rulesOf shows the agents' rules of the VMs of a probe, for failure messages.
func rulesOf(t testing.TB, from, to string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range []string{from, strings.Split(to, ":")[0]} {
		if _, ok := sbx.vms[name]; ok {
			fmt.Fprintf(&b, "--- rules of %s's agent:\n%s\n", name, nftRules(t, name))
		}
	}
	return b.String()
}

// nftRules is the table the VM's agent programs in its namespace.
func nftRules(t testing.TB, name string) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", vm(t, name).NetNS, "nft", "list", "table", "inet", "antreaplus").CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(nft list table inet antreaplus: %v: %s)", err, out)
	}
	return string(out)
}

// waitRules waits until the agent's rules of a VM satisfy check.
func waitRules(t testing.TB, name string, timeout time.Duration, check func(rules string) error) {
	t.Helper()
	framework.EventuallyEvery(t, timeout, 200*time.Millisecond, func() error {
		rules := nftRules(t, name)
		if err := check(rules); err != nil {
			return fmt.Errorf("the agent of %s: %w; its rules:\n%s", name, err, rules)
		}
		return nil
	})
}

// ipCmd runs ip(8), failing the test when it fails.
func ipCmd(t testing.TB, args ...string) {
	t.Helper()
	if _, err := netns.IP(args...); err != nil {
		t.Fatal(err)
	}
}
