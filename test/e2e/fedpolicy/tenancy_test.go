package fedpolicy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policyview"
	"antreaplus.io/antreaplus/test/framework"
)

// testTenancy: a tenant's federated policy in the Namespace other, applied
// to every ExternalEntity there and dropping everything, in both cloud
// members, never applies to the VMs of cloud-demo; its ClusterSet peer
// does not see cloud-demo's RemoteEntities either.
func testTenancy(t *testing.T) {
	t.Parallel()
	const name = "deny-everything"
	for _, cluster := range []string{"member-1", "member-2"} {
		create(t, cluster, federatedPolicy(otherNS, name, appliedToEveryEntity(),
			allowIn(8080, remoteVM("member-1", "dev-build-1")), dropIn("0.0.0.0/0"), dropOut("0.0.0.0/0")))
	}
	for _, cluster := range []string{"member-1", "member-2"} {
		waitFNP(t, cluster, otherNS, name, 30*time.Second, allOf(realized, func(p *policyv1alpha1.FederatedNetworkPolicy) error {
			if len(p.Status.EnforcementPoints) != 0 {
				return fmt.Errorf("enforced by %+v, want nothing: no VM lives in %s", p.Status.EnforcementPoints, otherNS)
			}
			return nil
		}))
		// The policy controller has compiled the derived policy: had it
		// applied to a VM, that VM's agent would have it now.
		framework.Eventually(t, 30*time.Second, func() error {
			d := &antreav1beta1.NetworkPolicy{}
			if err := cl(cluster).Get(bg, client.ObjectKey{Namespace: otherNS, Name: "fnp-" + name}, d); err != nil {
				return err
			}
			if d.Status.ObservedGeneration != d.Generation || d.Status.DesiredNodesRealized != 0 {
				return fmt.Errorf("%s: fnp-%s status %+v for generation %d, want compiled, applied to nothing", cluster, name, d.Status, d.Generation)
			}
			return nil
		})
	}
	// The tenant's ClusterSet peer: member-1's VMs are RemoteEntities of
	// cloud-demo in member-2, not of other.
	if p := getFNP(t, "member-2", otherNS, name); resolved()(p) != nil {
		t.Errorf("the tenant's policy resolved a remote VM of another Namespace:\n%s", statusJSON(p))
	}
	for _, v := range []string{"dev-build-1", "dev-build-2", "dev-build-3", "azure-dev-build-1", "azure-dev-build-2", "azure-dev-build-3"} {
		if rules := nftRules(t, v); strings.Contains(rules, otherNS+"/fnp-"+name) {
			t.Errorf("the agent of %s enforces the tenant's policy:\n%s", v, rules)
		}
	}
	for range 3 {
		for _, p := range [][2]string{{"dev-build-2", "dev-build-3:8080"}, {"azure-dev-build-2", "dev-build-2:8080"}} {
			expectProbe(t, p[0], p[1], connected)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if got := policyStatus(t, "member-2", otherNS, name).Policies; !slices.ContainsFunc(got, func(d policyview.Detail) bool { return d.Federated && d.Namespace == otherNS }) {
		t.Errorf("policy status %s -n %s does not show the tenant's federated policy: %+v", name, otherNS, got)
	}
}
