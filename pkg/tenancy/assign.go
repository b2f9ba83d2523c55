package tenancy

import "antreaplus.io/antreaplus/pkg/boundedload"

// Assign plans which replica manages each tenant: consistent hashing with
// bounded loads, the federation's leader assignment applied to tenants and
// replicas. No replica gets more than ceil(tenants/replicas), and when a
// replica joins or leaves only the tenants that must move do. Every replica
// computes the same plan from the same names; the result maps each tenant
// to a replica (none when there are no replicas).
func Assign(tenants, replicas []string) map[string]string {
	plan := boundedload.Compute(tenants, replicas)
	out := make(map[string]string, len(tenants))
	for _, t := range tenants {
		if r := plan.Preferred(t); r != "" {
			out[t] = r
		}
	}
	return out
}
