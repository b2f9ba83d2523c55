package policystats_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"antreaplus.io/antreaplus/pkg/policydistribution/policystats"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// ExampleCompute sums what two agents counted of one policy's rules.
func ExampleCompute() {
	web := wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "shop", Name: "web"}
	allow := wire.RuleKey{Policy: web, Direction: policyrules.DirectionIngress, Index: 0, Action: policyrules.ActionAllow}
	deny := wire.RuleKey{Policy: web, Direction: policyrules.DirectionIngress, Index: 1, Action: policyrules.ActionDrop}
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	points := policystats.ByPolicy([]policystats.Point{
		{Name: policystats.PointName("shop/vm-1"), At: now, Counts: []wire.RuleCount{{RuleKey: allow, Packets: 3, Bytes: 180}, {RuleKey: deny, Packets: 2, Bytes: 120}}},
		{Name: policystats.PointName("shop/vm-2"), At: now, Counts: []wire.RuleCount{{RuleKey: allow, Packets: 1, Bytes: 60}}},
	})
	stats, changed := policystats.Compute(policystats.Input{Reported: points[web]}, metav1.NewTime(now))
	fmt.Println(policystats.ObjectName(web), changed)
	for _, r := range stats.Rules {
		fmt.Printf("%s[%d] %s: %d packets, %d dropped\n", r.Direction, r.Index, r.Action, r.Traffic.Packets, r.Traffic.DroppedPackets)
	}
	fmt.Printf("total %d packets at %d points\n", stats.Traffic.Packets, len(stats.EnforcementPoints))
	// Output:
	// antreanetworkpolicy.web true
	// Ingress[0] Allow: 4 packets, 0 dropped
	// Ingress[1] Drop: 2 packets, 2 dropped
	// total 6 packets at 2 points
}
