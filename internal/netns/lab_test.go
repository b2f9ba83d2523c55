package netns

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// requireRoot ends a test that this machine cannot run: under make test
// (ANTREAPLUS_REQUIRE_CLUSTERS=1) it fails with the reason; elsewhere (make
// test-unit, a developer's go test) it is skipped.
func requireRoot(t *testing.T) {
	t.Helper()
	if err := Check("nft"); err != nil {
		if os.Getenv("ANTREAPLUS_REQUIRE_CLUSTERS") == "1" {
			t.Fatalf("cannot run: %v", err)
		}
		t.Skipf("cannot run: %v", err)
	}
}

// testPrefix names this process's namespaces: "apn-<pid>-".
func testPrefix() string { return fmt.Sprintf("apn-%d-", os.Getpid()) }

// create makes a namespace that goes with the test.
func create(t *testing.T, name string) *NS {
	t.Helper()
	ns, err := Create(testPrefix() + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ns.Delete(); err != nil {
			t.Error(err)
		}
	})
	return ns
}

// bridged is a bridge namespace with two namespaces on it:
//
//	a 10.99.0.1/24 --- br0 (br) --- b 10.99.0.2/24
func bridged(t *testing.T) (a, b *NS) {
	t.Helper()
	br := create(t, "br")
	a, b = create(t, "a"), create(t, "b")
	if err := br.Bridge("br0"); err != nil {
		t.Fatal(err)
	}
	for i, ns := range []*NS{a, b} {
		if err := br.Attach("br0", fmt.Sprintf("p%d", i), ns, "eth0", fmt.Sprintf("10.99.0.%d/24", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

func TestProbesBetweenNamespaces(t *testing.T) {
	requireRoot(t)
	ReapOrphans("apn-")
	a, b := bridged(t)
	echo := &Echo{}
	t.Cleanup(echo.Close)
	for _, err := range []error{echo.TCP(b, "10.99.0.2:80"), echo.UDP(b, "10.99.0.2:53"), echo.TCP(b, "10.99.0.2:81"),
		b.Run("nft", "add table inet t; add chain inet t in { type filter hook input priority 0; }; add rule inet t in tcp dport 81 drop")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		udp     bool
		from    *NS
		address string
		want    Outcome
	}{
		{false, a, "10.99.0.2:80", Connected},
		{true, a, "10.99.0.2:53", Connected},
		{false, a, "10.99.0.2:82", Refused},
		{false, a, "10.99.0.2:81", Dropped},
		{false, b, "10.99.0.1:80", Refused},
	} {
		probe := ProbeTCP
		if tc.udp {
			probe = ProbeUDP
		}
		if got, err := probe(t.Context(), tc.from, tc.address, 500*time.Millisecond); err != nil || got != tc.want {
			t.Errorf("probe of %s from %s: %q, %v; want %q", tc.address, tc.from.Name, got, err, tc.want)
		}
	}
}

func TestDeleteLeavesNothing(t *testing.T) {
	requireRoot(t)
	ns, err := Create(testPrefix() + "gone")
	if err != nil {
		t.Fatal(err)
	}
	sleep := ns.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	// ip(8) enters the namespace after it is started, then runs sleep with
	// the same pid: wait for it to be inside.
	var pids []int
	for deadline := time.Now().Add(5 * time.Second); ; {
		pids, err = Pids(ns.Name)
		if (err == nil && slices.Contains(pids, sleep.Process.Pid)) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || !slices.Contains(pids, sleep.Process.Pid) {
		t.Errorf("Pids(%s) = %v, %v; want the sleep, %d", ns.Name, pids, err, sleep.Process.Pid)
	}
	if !slices.Contains(List(testPrefix()), ns.Name) || !Exists(ns.Name) {
		t.Errorf("%s is not listed", ns.Name)
	}
	if err := ns.Delete(); err != nil {
		t.Fatal(err)
	}
	if Exists(ns.Name) {
		t.Errorf("%s still exists", ns.Name)
	}
	if err := Delete(ns.Name); err != nil {
		t.Errorf("deleting it again: %v", err)
	}
}

func TestReapOrphans(t *testing.T) {
	requireRoot(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := fmt.Sprintf("apn-%d-orphan", dead.Process.Pid)
	ns, err := Create(orphan)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ns.Delete() })
	mine := create(t, "mine")
	ReapOrphans("apn-")
	if Exists(orphan) || !Exists(mine.Name) {
		t.Errorf("after ReapOrphans: %s", strings.Join(List("apn-"), ", "))
	}
}

func TestCheckNamesWhatIsMissing(t *testing.T) {
	requireRoot(t)
	err := Check("nft", "no-such-program")
	if err == nil || !strings.Contains(err.Error(), "no-such-program is missing") {
		t.Errorf("Check: %v; want no-such-program is missing", err)
	}
}
