package overlap_test

import (
	"fmt"
	"time"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy/overlap"
)

// The leader of member-1 reads the claims of every member and decides
// what member-1's ConfigMap tenancyv1alpha1.OverlapsConfigMap says: t1 is claimed
// in member-2 too; t2 only here; member-2's claim of t3 has expired;
// member-3 cannot be read now, so what was written of it stays.
func ExampleDecide() {
	now := time.Now()
	claim := func(tenant, holder string, age time.Duration) overlap.Claim {
		return overlap.Claim{Tenant: tenant, Holder: holder, Renew: now.Add(-age), Duration: 15 * time.Second}
	}
	previous := map[string][]tenancyv1alpha1.Overlap{"t2": {{Member: "member-3", Holder: "eu/cloud-0"}}}
	next := overlap.Decide(overlap.Input{
		Member: "member-1",
		Claims: map[string][]overlap.Claim{
			"member-1": {claim("t1", "shared/cloud-0", time.Second), claim("t2", "shared/cloud-0", time.Second), claim("t3", "shared/cloud-1", time.Second)},
			"member-2": {claim("t1", "shared/cloud-0", time.Second), claim("t3", "shared/cloud-0", time.Minute)},
		},
		Kept:     []string{"member-3"},
		Previous: previous,
		Now:      now,
	})
	fmt.Println(overlap.Encode(next))
	for _, a := range overlap.Appeared(previous, next) {
		fmt.Println("newly claimed elsewhere:", a.Tenant, a.Overlaps)
	}
	// Output:
	// map[t1:[{"member":"member-2","holder":"shared/cloud-0"}] t2:[{"member":"member-3","holder":"eu/cloud-0"}]]
	// newly claimed elsewhere: t1 [{member-2 shared/cloud-0}]
}
