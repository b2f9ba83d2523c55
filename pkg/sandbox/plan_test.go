package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name    string
		n, base int
		wantErr string
	}{
		{name: "one cluster", n: 1, base: 16443},
		{name: "three clusters", n: 3, base: 16443},
		{name: "the most clusters", n: MaxClusters, base: 16443},
		{name: "no clusters", n: 0, base: 16443, wantErr: "1 to 50 clusters"},
		{name: "too many clusters", n: MaxClusters + 1, base: 16443, wantErr: "1 to 50 clusters"},
		{name: "ports past 65535", n: 3, base: 65534, wantErr: "not valid TCP ports"},
		{name: "component ports past 65535", n: 3, base: 65535 - MaxClusters - 10, wantErr: "not valid TCP ports"},
		{name: "DNS ports past 65535", n: 1, base: 65535 - dnsPortOffset - 1, wantErr: "not valid TCP ports"},
		{name: "cloud and external DNS ports past 65535", n: 1, base: 65535 - PortSpan + 2, wantErr: "not valid TCP ports"},
		{name: "highest base", n: MaxClusters, base: 65535 - PortSpan + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plans, err := Plan(tt.n, tt.base)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Plan(%d, %d) error = %v, want one containing %q", tt.n, tt.base, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Plan(%d, %d): %v", tt.n, tt.base, err)
			}
			if len(plans) != tt.n {
				t.Fatalf("got %d plans, want %d", len(plans), tt.n)
			}
			seenPorts := map[int]string{}
			c, m1, m2 := PlanCloud(tt.base), PlanCloudControllers(tt.base, 0), PlanCloudControllers(tt.base, 1)
			for _, port := range []int{c.AWS, c.Azure, m1.Metrics, m1.Health, m1.Policy, m2.Metrics, m2.Health, m2.Policy} {
				if _, ok := seenPorts[port]; ok {
					t.Errorf("cloud port %d used twice", port)
				}
				if port <= plans[0].DNS.MetricsPort {
					t.Errorf("cloud port %d is not above the DNS ports", port)
				}
				seenPorts[port] = "cloud"
			}
			for i, p := range plans {
				if p.Name != ClusterName(i+1) || p.Index != i+1 {
					t.Errorf("plan %d is named %q index %d", i, p.Name, p.Index)
				}
				if p.DNS.Addr.String() != fmt.Sprintf("127.0.53.%d", i+1) || p.DNS.Port <= p.ComponentPorts.Kwok && p.DNS.Port >= p.APIServerPort {
					t.Errorf("%s: DNS at %s overlaps the cluster's ports", p.Name, p.DNS.Endpoint())
				}
				for _, port := range p.All() {
					if port >= p.DNS.Port && port <= p.DNS.MetricsPort {
						t.Errorf("%s: port %d is also a DNS port", p.Name, port)
					}
					if other, ok := seenPorts[port]; ok {
						t.Errorf("port %d used by %s and %s", port, other, p.Name)
					}
					seenPorts[port] = p.Name
				}
				for j, q := range plans {
					if i != j && (p.PodCIDR.Overlaps(q.PodCIDR) || p.ServiceCIDR.Overlaps(q.ServiceCIDR)) {
						t.Errorf("%s and %s overlap", p.Name, q.Name)
					}
					if p.PodCIDR.Overlaps(q.ServiceCIDR) {
						t.Errorf("Pod CIDR of %s overlaps Service CIDR of %s", p.Name, q.Name)
					}
				}
			}
		})
	}
}

func TestPortsStayInTheSpan(t *testing.T) {
	for _, n := range []int{1, 3, MaxClusters} {
		plans, err := Plan(n, 22000)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, p := range Ports(plans) {
			if p < 22000 || p >= 22000+PortSpan {
				t.Errorf("%d clusters: port %d is outside [22000, %d)", n, p, 22000+PortSpan)
			}
			if seen[p] {
				t.Errorf("%d clusters: port %d used twice", n, p)
			}
			seen[p] = true
		}
	}
}

func TestFreeBaseSlotsDoNotOverlap(t *testing.T) {
	base, err := FreeBase(3)
	if err != nil {
		t.Fatal(err)
	}
	if (base-22000)%400 != 0 || base+PortSpan > 32768 || 400 < PortSpan {
		t.Errorf("base %d is not a slot of 400 ports below 32768 (span %d)", base, PortSpan)
	}
}

// TestFreeBaseReservesItsSlot: a slot handed out stays locked, so that
// another process (here: another open file, which flock treats the same)
// cannot take it, and this process does not hand it out twice.
func TestFreeBaseReservesItsSlot(t *testing.T) {
	seen := map[int]bool{}
	for range 5 {
		base, err := FreeBase(1)
		if err != nil {
			t.Fatal(err)
		}
		if seen[base] {
			t.Fatalf("slot %d handed out twice", base)
		}
		seen[base] = true
		f, err := os.OpenFile(filepath.Join(os.TempDir(), "antreaplus-port-slots", strconv.Itoa(base)+".lock"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		_ = f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			t.Errorf("slot %d: another process could lock it (err %v)", base, err)
		}
	}
	for base := range seen {
		releaseSlot(base)
	}
}

func TestProcessesUnder(t *testing.T) {
	dir := t.TempDir()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("no sleep binary (coreutils): %v", err)
	}
	raw, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "sleep")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	other := exec.Command(sleep, "30", filepath.Join(dir, "an-argument"))
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if got := processesUnder(dir); !slices.Contains(got, cmd.Process.Pid) {
		t.Errorf("processesUnder(%s) = %v, want it to hold %d", dir, got, cmd.Process.Pid)
	}
	if got := processesUnder(dir); slices.Contains(got, other.Process.Pid) {
		t.Errorf("a process that only names %s in an argument was counted", dir)
	}
	if got := processesUnder(filepath.Join(dir, "other")); slices.Contains(got, cmd.Process.Pid) {
		t.Errorf("a process of %s counted under a sibling directory", dir)
	}
}
