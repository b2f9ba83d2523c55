package policystats

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

var (
	web = wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "shop", Name: "web"}
	db  = wire.PolicyRef{Kind: string(policyrules.KindClusterNetworkPolicy), Name: "db"}

	t0 = time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
)

func count(ref wire.PolicyRef, dir policyrules.Direction, index int32, action policyrules.Action, packets uint64) wire.RuleCount {
	return wire.RuleCount{RuleKey: wire.RuleKey{Policy: ref, Direction: dir, Index: index, Action: action}, Packets: packets, Bytes: 60 * packets}
}

func rule(dir policyrules.Direction, index int32, action policyrules.Action, packets int64) policyv1alpha1.RuleTrafficStats {
	r := policyv1alpha1.RuleTrafficStats{Direction: string(dir), Index: index, Action: string(action),
		Traffic: policyv1alpha1.TrafficStats{Packets: packets, Bytes: 60 * packets}}
	if action == policyrules.ActionDrop || action == policyrules.ActionReject {
		r.Traffic.DroppedPackets = packets
	}
	return r
}

func point(name string, rules ...policyv1alpha1.RuleTrafficStats) policyv1alpha1.PointTrafficStats {
	return policyv1alpha1.PointTrafficStats{Name: name, Rules: rules, ReportTime: metav1.NewTime(t0)}
}

const (
	in  = policyrules.DirectionIngress
	out = policyrules.DirectionEgress
)

func TestByPolicy(t *testing.T) {
	got := ByPolicy([]Point{
		{Name: "agent a/vm1", At: t0, Counts: []wire.RuleCount{count(web, in, 0, "Allow", 3), count(db, out, 1, "Drop", 2), count(web, in, 1, "Drop", 1)}},
		{Name: "agent a/vm2", At: t0, Counts: []wire.RuleCount{count(db, out, 1, "Drop", 5)}},
	})
	if len(got[web]) != 1 || len(got[web][0].Counts) != 2 || len(got[db]) != 2 {
		t.Fatalf("ByPolicy = %+v", got)
	}
	for _, p := range got[db] {
		if len(p.Counts) != 1 || p.Counts[0].Policy != db {
			t.Errorf("db's point %s holds %+v", p.Name, p.Counts)
		}
	}
}

func TestCompute(t *testing.T) {
	now := metav1.NewTime(t0.Add(time.Minute))
	before := metav1.NewTime(t0.Add(-time.Hour))
	stored := &policyv1alpha1.PolicyStats{
		Traffic:           policyv1alpha1.TrafficStats{Packets: 7, Bytes: 420, DroppedPackets: 0},
		Rules:             []policyv1alpha1.RuleTrafficStats{rule(in, 0, "Allow", 7)},
		EnforcementPoints: []policyv1alpha1.PointTrafficStats{point("agent shop/vm1", rule(in, 0, "Allow", 4)), point("agent shop/vm2", rule(in, 0, "Allow", 3))},
		UpdateTime:        before,
	}
	exists := func(names ...string) func(string) bool {
		return func(p string) bool {
			for _, n := range names {
				if n == p {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name        string
		in          Input
		wantTraffic policyv1alpha1.TrafficStats
		wantRules   []policyv1alpha1.RuleTrafficStats
		wantPoints  []string
		changed     bool
	}{{
		name: "two agents sum per rule, ingress first",
		in: Input{Reported: []Point{
			{Name: "agent shop/vm1", At: t0, Counts: []wire.RuleCount{count(web, out, 0, "Drop", 2), count(web, in, 0, "Allow", 4)}},
			{Name: "agent shop/vm2", At: t0, Counts: []wire.RuleCount{count(web, in, 0, "Allow", 3)}},
		}},
		wantTraffic: policyv1alpha1.TrafficStats{Packets: 9, Bytes: 540, DroppedPackets: 2},
		wantRules:   []policyv1alpha1.RuleTrafficStats{rule(in, 0, "Allow", 7), rule(out, 0, "Drop", 2)},
		wantPoints:  []string{"agent shop/vm1", "agent shop/vm2"},
		changed:     true,
	}, {
		name: "the same totals reported again change nothing",
		in: Input{Prev: stored, Exists: exists("agent shop/vm1", "agent shop/vm2"), Reported: []Point{
			{Name: "agent shop/vm1", At: t0, Counts: []wire.RuleCount{count(web, in, 0, "Allow", 4)}},
		}},
		wantTraffic: policyv1alpha1.TrafficStats{Packets: 7, Bytes: 420},
		wantRules:   []policyv1alpha1.RuleTrafficStats{rule(in, 0, "Allow", 7)},
		wantPoints:  []string{"agent shop/vm1", "agent shop/vm2"},
	}, {
		name: "after a controller restart, a point not reported yet keeps its last totals",
		in: Input{Prev: stored, Exists: exists("agent shop/vm1", "agent shop/vm2"), Reported: []Point{
			{Name: "agent shop/vm1", At: t0, Counts: []wire.RuleCount{count(web, in, 0, "Allow", 6)}},
		}},
		wantTraffic: policyv1alpha1.TrafficStats{Packets: 9, Bytes: 540},
		wantRules:   []policyv1alpha1.RuleTrafficStats{rule(in, 0, "Allow", 9)},
		wantPoints:  []string{"agent shop/vm1", "agent shop/vm2"},
		changed:     true,
	}, {
		name:        "a point whose VM is gone leaves the sum",
		in:          Input{Prev: stored, Exists: exists("agent shop/vm1")},
		wantTraffic: policyv1alpha1.TrafficStats{Packets: 4, Bytes: 240},
		wantRules:   []policyv1alpha1.RuleTrafficStats{rule(in, 0, "Allow", 4)},
		wantPoints:  []string{"agent shop/vm1"},
		changed:     true,
	}, {
		name:       "nothing reported and every point gone: empty",
		in:         Input{Prev: stored, Exists: exists()},
		wantPoints: nil,
		changed:    true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := Compute(tc.in, now)
			if changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			if diff := cmp.Diff(tc.wantTraffic, got.Traffic); diff != "" {
				t.Errorf("traffic (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRules, got.Rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			var names []string
			for _, p := range got.EnforcementPoints {
				names = append(names, p.Name)
			}
			if diff := cmp.Diff(tc.wantPoints, names); diff != "" {
				t.Errorf("points (-want +got):\n%s", diff)
			}
			wantTime := now
			if !tc.changed {
				wantTime = before
			}
			if !got.UpdateTime.Equal(&wantTime) {
				t.Errorf("updateTime %v, want %v", got.UpdateTime, wantTime)
			}
		})
	}
}

func TestObjectName(t *testing.T) {
	if got := ObjectName(web); got != "antreanetworkpolicy.web" {
		t.Errorf("ObjectName(web) = %s", got)
	}
	if ObjectName(db) == ObjectName(wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Name: "db"}) {
		t.Error("a ClusterNetworkPolicy and a NetworkPolicy of one name share an object")
	}
}
