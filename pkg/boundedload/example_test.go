package boundedload_test

import (
	"fmt"

	"antreaplus.io/antreaplus/pkg/boundedload"
)

// Every supervisor computes the same plan from the same members and live
// supervisors; each leads the members it ranks 0 for, and stands in, in
// rank order, for the others.
func ExampleCompute() {
	members := []string{"member-1", "member-2", "member-3", "member-4"}
	plan := boundedload.Compute(members, []string{"supervisor-1", "supervisor-2"})
	for _, m := range members {
		fmt.Println(m, plan.Order(m), "supervisor-1 ranks", plan.Rank(m, "supervisor-1"))
	}
	fmt.Println(plan.Load())

	// supervisor-2 is gone: supervisor-1 is preferred for every member.
	plan = boundedload.Compute(members, []string{"supervisor-1"})
	fmt.Println(plan.Load())
	// Output:
	// member-1 [supervisor-1 supervisor-2] supervisor-1 ranks 0
	// member-2 [supervisor-1 supervisor-2] supervisor-1 ranks 0
	// member-3 [supervisor-2 supervisor-1] supervisor-1 ranks 1
	// member-4 [supervisor-2 supervisor-1] supervisor-1 ranks 1
	// map[supervisor-1:2 supervisor-2:2]
	// map[supervisor-1:4]
}
