package services

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/test/framework"
)

// exportLB exports a LoadBalancer Service with the given ingress IP.
func exportLB(t *testing.T, cluster, ns, name, ip string) {
	t.Helper()
	s := createService(t, cluster, ns, name, loadBalancer())
	setIngress(t, cluster, s, ip)
	exportService(t, cluster, ns, name, false)
}

func TestExporterAPIServerDownWithdrawnOnlyAfterGrace(t *testing.T) {
	f := federation(t)
	ns := sharedNamespace(t)
	exportLB(t, "member-1", ns, "web", "203.0.113.61")
	exportLB(t, exporter3, ns, "web", "203.0.113.63")
	others := []string{"member-1", "member-2"}
	waitImported(t, importLimit, ns, "web", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-1", exporter3)
	})

	pidFile := filepath.Join(clusters.Sandbox.ClusterDir(exporter3), "pids", "kube-apiserver.pid")
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	t.Cleanup(func() { restartCluster(t, f) })

	// Within the 15 s grace (less the last probe's age), member-3's endpoints stay everywhere.
	for time.Since(down) < 13*time.Second {
		for _, c := range others {
			if got := readImport(t, c, ns, "web").endpoints(exporter3); !slices.Equal(got, []string{"203.0.113.63:80"}) {
				t.Fatalf("%s after %s: member-3's endpoints are %v before the grace ended", c, time.Since(down).Round(time.Millisecond), got)
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	// Past the grace: withdrawn everywhere, member-1's endpoints untouched.
	waitImported(t, 45*time.Second, ns, "web", others, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-1")
	})
	t.Logf("member-3's endpoints withdrawn %s after its API server died (grace 15s)", time.Since(down).Round(100*time.Millisecond))

	// Back: its export is imported again.
	restartCluster(t, f)
	back := time.Now()
	waitImported(t, 90*time.Second, ns, "web", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-1", exporter3)
	})
	// Every supervisor reconnects its informers of member-3 at once: a new
	// export there is imported without waiting out client-go's back-off
	// (which reaches a minute after an outage this long).
	exportLB(t, exporter3, ns, "fresh", "203.0.113.64")
	waitImported(t, 30*time.Second, ns, "fresh", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", exporter3)
	})
	t.Logf("a new export of member-3 imported everywhere %s after its API server came back", time.Since(back).Round(100*time.Millisecond))
	// member-3's own member controller restarted its informers too: it
	// judges the new export (within waitCondition's 30 s, not a minute).
	waitCondition(t, exporter3, ns, "fresh", valid, "True/Valid")
}

var restartOnce sync.Mutex

// restartCluster starts whatever sandbox component is down and waits until every member is led.
func restartCluster(t *testing.T, f *framework.Federation) {
	t.Helper()
	restartOnce.Lock()
	defer restartOnce.Unlock()
	// Also a clean-up, which runs after t.Context() is cancelled.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
	defer cancel()
	if _, err := clusters.Sandbox.Up(ctx, nClusters); err != nil {
		t.Fatalf("restarting the sandbox's clusters: %v", err)
	}
	f.WaitAllLed(t, 60*time.Second)
}

// deletions watches a namespace in every member and records every deletion
// of an imported object, and every change of imported endpoints.
type deletions struct {
	mu     sync.Mutex
	events []string
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func watchDeletions(t *testing.T, ns string) *deletions {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	d := &deletions{cancel: cancel}
	for _, c := range clusters.Names {
		wc, err := client.NewWithWatch(clusters.Config(t, c), client.Options{Scheme: cl(t, c).Scheme()})
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range importLists() {
			w, err := wc.Watch(ctx, list, client.InNamespace(ns))
			if err != nil {
				t.Fatalf("watching %T in %s: %v", list, c, err)
			}
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				defer w.Stop()
				for ev := range w.ResultChan() {
					if o, ok := ev.Object.(client.Object); ok && ev.Type == watch.Deleted {
						d.mu.Lock()
						d.events = append(d.events, fmt.Sprintf("%s: %T %s deleted", c, o, o.GetName()))
						d.mu.Unlock()
					}
				}
			}()
		}
	}
	t.Cleanup(d.stop)
	return d
}

func (d *deletions) stop() {
	d.cancel()
	d.wg.Wait()
}

func (d *deletions) seen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.events...)
}

// snapshot records each member's import of a name: UIDs and endpoints.
func snapshot(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range clusters.Names {
		i := readImport(t, c, ns, name)
		parts := []string{}
		if i.imp != nil && i.derived != nil {
			parts = append(parts, string(i.imp.UID), string(i.derived.UID), strings.Join(i.imp.Spec.IPs, ","))
		}
		for _, src := range i.sources() {
			for _, s := range i.slices[src] {
				parts = append(parts, string(s.UID))
			}
			parts = append(parts, src+"="+strings.Join(i.endpoints(src), ","))
		}
		out[c] = strings.Join(parts, " ")
	}
	return out
}

func TestLeaderFailoverWithdrawsNothing(t *testing.T) {
	f := federation(t)
	ns := sharedNamespace(t)
	createService(t, "member-1", ns, "web", nodePort())
	exportService(t, "member-1", ns, "web", false)
	exportLB(t, exporter3, ns, "web", "203.0.113.73")
	waitImported(t, importLimit, ns, "web", clusters.Names, func(_ string, i imported) error {
		return checkClusterSetImport(i, "http 80/TCP", "member-1", exporter3)
	})
	before := snapshot(t, ns, "web")
	d := watchDeletions(t, ns)

	leaders := f.WaitAllLed(t, 30*time.Second)
	victim := leaders[exporter3]
	var survivor string
	for _, s := range f.Supervisors {
		if s != victim {
			survivor = s
		}
	}
	start := time.Now()
	f.Signal(t, victim, syscall.SIGKILL)
	t.Cleanup(func() {
		if f.ManagerPid(victim) == 0 {
			f.Restart(t, victim)
		}
	})
	f.WaitAllLed(t, 30*time.Second, survivor)
	t.Logf("kill -9 of %s's manager: every member led by %s after %s", victim, survivor, time.Since(start).Round(100*time.Millisecond))
	time.Sleep(5 * time.Second) // the new leader has reconciled everything by now
	// The victim comes back and takes its share back: a second change of leaders.
	f.Restart(t, victim)
	framework.Eventually(t, 40*time.Second, func() error {
		if n := framework.Count(f.Leaders(t))[victim]; n == 0 {
			return fmt.Errorf("%s leads nothing yet", victim)
		}
		return nil
	})
	time.Sleep(5 * time.Second)
	if ev := d.seen(); len(ev) > 0 {
		t.Errorf("leader changes deleted imported objects: %v", ev)
	}
	after := snapshot(t, ns, "web")
	for c := range before {
		if before[c] != after[c] {
			t.Errorf("%s's import changed over the leader changes:\n before %s\n after  %s", c, before[c], after[c])
		}
	}
}
