package health_test

import (
	"fmt"
	"time"

	"antreaplus.io/antreaplus/pkg/federation/health"
)

// A member is unreachable from the federation only once no supervisor has
// reached it for longer than the grace; a supervisor whose report is
// older than the grace vouches for nothing.
func ExampleAssess() {
	registered := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := registered.Add(time.Hour)
	grace := 30 * time.Second
	views := []health.View{
		{Supervisor: "supervisor-1", Reachable: false, LastReachable: now.Add(-40 * time.Second), ReportedAt: now},
		// supervisor-2 last reported a minute ago: its view is stale.
		{Supervisor: "supervisor-2", Reachable: true, LastReachable: now.Add(-time.Minute), ReportedAt: now.Add(-time.Minute)},
	}
	v := health.Assess(views, now, grace, registered)
	fmt.Println("unreachable:", v.Unreachable, "reachable by:", v.ReachableBy, "last seen:", now.Sub(v.LastSeen))

	// Ten seconds earlier, supervisor-1's last contact was within the grace.
	v = health.Assess(views, now.Add(-10*time.Second), grace, registered)
	fmt.Println("unreachable:", v.Unreachable)
	// Output:
	// unreachable: true reachable by: [] last seen: 40s
	// unreachable: false
}
