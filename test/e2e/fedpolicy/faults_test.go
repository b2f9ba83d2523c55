package fedpolicy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// leaderOf is the supervisor holding a member's leader Lease, "" when none.
func leaderOf(t testing.TB, member string) string {
	t.Helper()
	l := &coordinationv1.Lease{}
	if err := cl(member).Get(bg, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease}, l); err != nil {
		return ""
	}
	return ptr.Deref(l.Spec.HolderIdentity, "")
}

// watchImports records, until stopped, every moment a member lacked one
// of the VMs it must keep importing from source.
type watchImports struct {
	stop   chan struct{}
	done   sync.WaitGroup
	mu     sync.Mutex
	missed []string
}

func watchKept(t testing.TB, cluster, source string, keep []string) *watchImports {
	t.Helper()
	w := &watchImports{stop: make(chan struct{})}
	w.done.Go(func() {
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			list := &federationv1alpha1.RemoteEntityList{}
			if err := cl(cluster).List(bg, list, client.InNamespace(ns), client.MatchingLabels{federationv1alpha1.LabelSourceCluster: source}); err != nil {
				continue // the API server's answer, not the import, is missing
			}
			var got []string
			for _, e := range list.Items {
				got = append(got, e.Labels[nameTag])
			}
			for _, k := range keep {
				if !slices.Contains(got, k) {
					w.mu.Lock()
					w.missed = append(w.missed, fmt.Sprintf("%s at %s (had %v)", k, time.Now().Format("15:04:05.000"), got))
					w.mu.Unlock()
				}
			}
		}
	})
	return w
}

// end stops watching and returns what was missed.
func (w *watchImports) end() []string {
	close(w.stop)
	w.done.Wait()
	return w.missed
}

// testFailover: the manager leading member-2 is killed (kill -9) just as
// member-1 narrows its export. The other supervisor takes member-2 over and
// brings its RemoteEntities in line with member-1's export: what is still
// exported is never withdrawn, what is no longer is gone.
func testFailover(t *testing.T) {
	federation(t)
	victim := leaderOf(t, "member-2")
	pid := sbx.sb.ManagerPid(victim)
	if victim == "" || pid == 0 {
		t.Fatalf("member-2 is led by %q (manager pid %d)", victim, pid)
	}
	kept := []string{"dev-build-1", "dev-build-2"}
	watches := map[string]*watchImports{"member-2": watchKept(t, "member-2", "member-1", kept), "member-3": watchKept(t, "member-3", "member-1", kept)}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the manager of %s: %v", victim, err)
	}
	killed := time.Now()
	t.Cleanup(func() { antreaplus(t, sbx.up...) }) // restarts the manager
	export := entityExport()
	framework.Update(t, cl("member-1"), export, func() {
		export.Spec.ExternalEntitySelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: nameTag, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"dev-build-3"}}}
	})
	t.Cleanup(func() {
		framework.Update(t, cl("member-1"), export, func() { export.Spec.ExternalEntitySelector.MatchExpressions = nil })
	})
	framework.Eventually(t, 30*time.Second, func() error {
		if l := leaderOf(t, "member-2"); l == "" || l == victim {
			return fmt.Errorf("member-2 is led by %q", l)
		}
		return nil
	})
	t.Logf("the manager of %s killed: member-2 led by %s after %s", victim, leaderOf(t, "member-2"), time.Since(killed).Round(100*time.Millisecond))
	for _, cluster := range []string{"member-2", "member-3"} {
		waitRemoteVMs(t, cluster, "member-1", kept, 30*time.Second)
	}
	t.Logf("the RemoteEntities match member-1's new export %s after the kill", time.Since(killed).Round(100*time.Millisecond))
	for cluster, w := range watches {
		if missed := w.end(); len(missed) > 0 {
			t.Errorf("%s lost RemoteEntities still exported during the failover: %s", cluster, strings.Join(missed, "; "))
		}
	}
}

// testUnreachable: member-1 is cut off from both supervisors, as by a
// network partition (every supervisor reaches it through a proxy of the
// test, which is cut). What it exported stays imported everywhere for the
// unreachable grace, then is withdrawn everywhere; it comes back when
// member-1 is reachable again.
func testUnreachable(t *testing.T) {
	federation(t)
	proxies := throughProxies(t, "member-1")
	cut := time.Now()
	for _, p := range proxies {
		p.Cut()
	}
	t.Cleanup(func() {
		for _, p := range proxies {
			if err := p.Restore(); err != nil {
				t.Errorf("restoring a proxy: %v", err)
			}
		}
	})
	// Within the grace, nothing is withdrawn.
	for time.Since(cut) < grace-time.Second {
		for _, cluster := range []string{"member-2", "member-3"} {
			if got := remoteVMs(t, cluster, "member-1"); !slices.Equal(got, devVMs) {
				t.Fatalf("%s after member-1 was cut off (grace %s): %s imports %v of member-1, want %v", time.Since(cut).Round(100*time.Millisecond), grace, cluster, got, devVMs)
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Past it, withdrawn from every member; member-2's own exports stay.
	for _, cluster := range []string{"member-2", "member-3"} {
		waitRemoteVMs(t, cluster, "member-1", nil, 45*time.Second)
	}
	t.Logf("member-1's VMs withdrawn everywhere %s after it was cut off (grace %s)", time.Since(cut).Round(100*time.Millisecond), grace)
	if got := remoteVMs(t, "member-3", "member-2"); !slices.Equal(got, devVMs) {
		t.Errorf("member-3 imports %v of member-2, want %v: only member-1 was cut off", got, devVMs)
	}
	back := time.Now()
	for _, p := range proxies {
		if err := p.Restore(); err != nil {
			t.Fatal(err)
		}
	}
	waitImported(t, 60*time.Second)
	t.Logf("member-1's VMs imported again %s after it was reachable again", time.Since(back).Round(100*time.Millisecond))
}

// throughProxies makes every supervisor reach member through a proxy of
// the test, until the test ends, and waits until they all do.
func throughProxies(t *testing.T, member string) []*framework.TCPProxy {
	t.Helper()
	var proxies []*framework.TCPProxy
	for _, sup := range []string{"member-1", "member-2"} {
		entry := &federationv1alpha1.MemberCluster{}
		if err := cl(sup).Get(bg, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: member}, entry); err != nil {
			t.Fatalf("reading %s's registry entry of %s: %v", sup, member, err)
		}
		server := entry.Spec.Server
		p, err := framework.NewTCPProxy(strings.TrimPrefix(server, "https://"))
		if err != nil {
			t.Fatal(err)
		}
		proxies = append(proxies, p)
		framework.Update(t, cl(sup), entry, func() { entry.Spec.Server = "https://" + p.Addr() })
		t.Cleanup(func() {
			framework.Update(t, cl(sup), entry, func() { entry.Spec.Server = server })
			_ = p.Close()
		})
	}
	// Every supervisor has rebuilt its session through its proxy and reaches
	// the member.
	framework.Eventually(t, 40*time.Second, func() error {
		for _, sup := range []string{"member-1", "member-2"} {
			entry := &federationv1alpha1.MemberCluster{}
			if err := cl(sup).Get(bg, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: member}, entry); err != nil {
				return err
			}
			if entry.Status.ObservedGeneration != entry.Generation || !entry.Status.Reachable {
				return fmt.Errorf("%s's view of %s: generation %d observed %d, reachable %v", sup, member, entry.Generation, entry.Status.ObservedGeneration, entry.Status.Reachable)
			}
		}
		if leaderOf(t, member) == "" {
			return fmt.Errorf("%s is not led", member)
		}
		return nil
	})
	waitImported(t, 30*time.Second)
	return proxies
}
