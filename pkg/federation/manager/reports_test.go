package manager

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// TestReportsWrittenOnChange: at idle the supervisor rewrites a member's
// registry status once per refresh (half the grace), not every other
// status period, and its writes do not reconcile its registry again; a
// change (the member cut off) is written within a status period of being
// seen.
func TestReportsWrittenOnChange(t *testing.T) {
	const (
		statusPeriod = 200 * time.Millisecond
		grace        = 4 * time.Second // a refresh every 2 s
		idleFor      = 6 * time.Second
	)
	proxy := federate(t)
	m := runManager(t, func(o *Options) { o.StatusPeriod, o.UnreachableGrace = statusPeriod, grace })
	local := clusters.Client(t, supervisor)
	status := func(name string) federationv1alpha1.MemberClusterStatus {
		mc := &federationv1alpha1.MemberCluster{}
		if err := local.Get(t.Context(), client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: name}, mc); err != nil {
			t.Fatal(err)
		}
		return mc.Status
	}
	framework.Eventually(t, time.Minute, func() error {
		for _, name := range []string{supervisor, member} {
			if st := status(name); !st.Reachable {
				return fmt.Errorf("%s not reported reachable yet: %+v", name, st)
			}
		}
		return nil
	})
	// Settled: no change of leader or condition while idle.
	time.Sleep(2 * time.Second)
	writes0, reconciles0 := testutil.ToFloat64(statusWrites.WithLabelValues("ok")), registryReconciles(t)
	time.Sleep(idleFor)
	writes, reconciles := testutil.ToFloat64(statusWrites.WithLabelValues("ok"))-writes0, registryReconciles(t)-reconciles0
	every2 := 2 * float64(idleFor/(2*statusPeriod)) // two members, every other status period
	t.Logf("idle %v, 2 members: %.0f status writes (%.0f when rewritten every other status period), %.0f registry reconciles", idleFor, writes, every2, reconciles)
	refreshes := float64(idleFor / m.reportRefresh())
	if writes < 2*(refreshes-1) || writes > 2*(refreshes+1) {
		t.Errorf("%.0f status writes in %v of idle; want about %.0f (each member's report refreshed every %v)", writes, idleFor, 2*refreshes, m.reportRefresh())
	}
	if reconciles != 0 {
		t.Errorf("%.0f registry reconciles while only the status was written; want none", reconciles)
	}

	// A change is written at once: the member cut off is reported
	// unreachable within LateAfter (the probe goes late) and a status period.
	proxy.Refuse()
	cut := time.Now()
	framework.Eventually(t, 20*time.Second, func() error {
		if st := status(member); st.Reachable {
			return fmt.Errorf("%s still reported reachable", member)
		}
		return nil
	})
	took := time.Since(cut)
	t.Logf("cut off: reported unreachable after %v", took.Round(10*time.Millisecond))
	if bound := m.opts.Election.LateAfter() + m.opts.Election.RetryPeriod + 3*statusPeriod; took > bound {
		t.Errorf("the cut was reported after %v; want it within %v (late, a probe, a status period)", took, bound)
	}
}

// registryReconciles sums controller_runtime_reconcile_total of the registry controller.
func registryReconciles(t *testing.T) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, mt := range f.GetMetric() {
			for _, l := range mt.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "registry" {
					n += mt.GetCounter().GetValue()
				}
			}
		}
	}
	return n
}
