package policystats

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Point is what one enforcement point reported: its totals for every rule
// it counted.
type Point struct {
	// Name is the point as policy statuses name it: "agent <ns>/<vm>".
	Name   string
	Counts []wire.RuleCount
	At     time.Time
}

// PointName is the name of a VM agent's point.
func PointName(vm string) string { return "agent " + vm }

// ByPolicy splits the points' counts by policy: each policy gets the
// points that counted one of its rules, with those rules' counts only.
func ByPolicy(points []Point) map[wire.PolicyRef][]Point {
	out := map[wire.PolicyRef][]Point{}
	for _, p := range points {
		mine := map[wire.PolicyRef][]wire.RuleCount{}
		for _, c := range p.Counts {
			mine[c.Policy] = append(mine[c.Policy], c)
		}
		for ref, counts := range mine {
			out[ref] = append(out[ref], Point{Name: p.Name, At: p.At, Counts: counts})
		}
	}
	return out
}

// Input is what one policy's stats are computed from.
type Input struct {
	// Reported are the points that reported since the controller started.
	Reported []Point
	// Prev is the object as stored (nil: none yet).
	Prev *policyv1alpha1.PolicyStats
	// Exists tells whether a point that did not report since the
	// controller started still exists (its VM does): its last totals, as
	// Prev holds them, stay in the sum; those of points gone leave it.
	Exists func(point string) bool
}

// Compute returns the counted content of a policy's stats object: the
// points (those reported, those of Prev that still exist and did not),
// their rules summed, the total. changed says whether it differs from
// Prev's; UpdateTime is now when it does, Prev's otherwise.
func Compute(in Input, now metav1.Time) (out policyv1alpha1.PolicyStats, changed bool) {
	points := map[string]policyv1alpha1.PointTrafficStats{}
	if in.Prev != nil {
		for _, p := range in.Prev.EnforcementPoints {
			if in.Exists != nil && in.Exists(p.Name) {
				points[p.Name] = p
			}
		}
	}
	for _, p := range in.Reported {
		pt := policyv1alpha1.PointTrafficStats{Name: p.Name, ReportTime: metav1.NewTime(p.At.UTC().Truncate(time.Second))}
		for _, c := range p.Counts {
			pt.Rules = append(pt.Rules, ruleOf(c, c.Packets, c.Bytes))
		}
		slices.SortFunc(pt.Rules, compareRules)
		points[p.Name] = pt
	}
	sums := map[string]*policyv1alpha1.RuleTrafficStats{}
	for _, name := range slices.Sorted(maps.Keys(points)) {
		pt := points[name]
		out.EnforcementPoints = append(out.EnforcementPoints, pt)
		for _, r := range pt.Rules {
			k := ruleKey(r)
			if sums[k] == nil {
				sums[k] = &policyv1alpha1.RuleTrafficStats{Direction: r.Direction, Index: r.Index, Name: r.Name, Action: r.Action}
			}
			add(&sums[k].Traffic, r.Traffic)
		}
	}
	for _, r := range sums {
		out.Rules = append(out.Rules, *r)
		add(&out.Traffic, r.Traffic)
	}
	slices.SortFunc(out.Rules, compareRules)
	changed = in.Prev == nil || !sameCounts(in.Prev, &out)
	out.UpdateTime = now
	if !changed {
		out.UpdateTime = in.Prev.UpdateTime
	}
	return out, changed
}

func ruleOf(c wire.RuleCount, packets, bytes uint64) policyv1alpha1.RuleTrafficStats {
	r := policyv1alpha1.RuleTrafficStats{Direction: string(c.Direction), Index: c.Index, Name: c.Name, Action: string(c.Action),
		Traffic: policyv1alpha1.TrafficStats{Packets: int64(packets), Bytes: int64(bytes)}}
	if c.Action == policyrules.ActionDrop || c.Action == policyrules.ActionReject {
		r.Traffic.DroppedPackets = r.Traffic.Packets
	}
	return r
}

func add(sum *policyv1alpha1.TrafficStats, t policyv1alpha1.TrafficStats) {
	sum.Packets += t.Packets
	sum.Bytes += t.Bytes
	sum.DroppedPackets += t.DroppedPackets
}

// compareRules orders rules as the policy lists them: ingress first, then
// by index.
func compareRules(a, b policyv1alpha1.RuleTrafficStats) int {
	return cmp.Or(cmp.Compare(directionOrder(a.Direction), directionOrder(b.Direction)), cmp.Compare(a.Index, b.Index),
		cmp.Compare(a.Name, b.Name), cmp.Compare(a.Action, b.Action))
}

func directionOrder(d string) int {
	if d == string(policyrules.DirectionIngress) {
		return 0
	}
	return 1
}

func ruleKey(r policyv1alpha1.RuleTrafficStats) string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s", r.Direction, r.Index, r.Name, r.Action)
}

func sameCounts(a, b *policyv1alpha1.PolicyStats) bool {
	if a.Traffic != b.Traffic || !slices.Equal(a.Rules, b.Rules) || len(a.EnforcementPoints) != len(b.EnforcementPoints) {
		return false
	}
	for i := range a.EnforcementPoints {
		pa, pb := a.EnforcementPoints[i], b.EnforcementPoints[i]
		if pa.Name != pb.Name || !slices.Equal(pa.Rules, pb.Rules) {
			return false
		}
	}
	return true
}

// ObjectName is the name of a policy's stats object: its kind and name, in
// lower case, so that a ClusterNetworkPolicy and a NetworkPolicy of the
// same name never share one.
func ObjectName(ref wire.PolicyRef) string { return strings.ToLower(ref.Kind) + "." + ref.Name }
