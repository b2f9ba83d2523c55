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
	t.Run("policies", func(t *testing.T) { // each calls t.Parallel
		t.Run("ingress", testIngress)         // to azure-dev-build-2, from dev-build-1 (whose address changes) and 3
		t.Run("egress", testEgress)           // from azure-dev-build-3 to dev-build-3 (federated Service) and 2
		t.Run("refusals", testRefusals)       // azure-dev-build-1
		t.Run("tenancy", testTenancy)         // the Namespace other; probes dev-build-2 -> 3, azure-dev-build-2 -> dev-build-2
		t.Run("agentless", testAgentless)     // prod-web-1, an AWS VM without agent
		t.Run("services", testServiceIngress) // prod-orders, an RDS DB instance
		t.Run("networks", testNetworks)       // the edge networks: edge-web-1 -> edge-db-1, edge-twin-1 -> edge-db-1
	})
	t.Run("nat-replaced", testNATReplaced)
	t.Run("failover", testFailover)
	t.Run("unreachable", testUnreachable)
	t.Run("terminated", testTerminated)
}
