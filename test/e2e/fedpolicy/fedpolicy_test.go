package fedpolicy

import (
	"testing"
)

// TestFederatedPolicies walks docs/federated-policy.md on one sandbox.
// First the policies, side by side: each applies to VMs of its own, so they
// run in parallel. Then, one at a time and in this order, what disturbs the
// federation: the leader of member-2 killed, member-1 cut off from every
// supervisor, a VM of member-1 terminated in its cloud.
func TestFederatedPolicies(t *testing.T) {
	federation(t)
	t.Run("policies", func(t *testing.T) {
		for _, c := range []struct {
			name string
			run  func(*testing.T)
		}{
			{"ingress", testIngress},     // to azure-dev-build-2, from dev-build-1 (whose address changes) and 3
			{"egress", testEgress},       // from azure-dev-build-3 to dev-build-3 (federated Service) and 2
			{"refusals", testRefusals},   // azure-dev-build-1
			{"tenancy", testTenancy},     // the Namespace other; probes dev-build-2 -> 3, azure-dev-build-2 -> dev-build-2
			{"agentless", testAgentless}, // prod-web-1, an AWS VM without agent
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				c.run(t)
			})
		}
	})
	t.Run("failover", testFailover)
	t.Run("unreachable", testUnreachable)
	t.Run("terminated", testTerminated)
}
