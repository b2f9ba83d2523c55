package fedpolicy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// testAgentless: a federated policy of member-1 on prod-web-1, an AWS VM
// without agent, lets Azure's dev-build-1 (exported by member-2) in on 443:
// the cloud controller writes it into the VM's security group, read here
// through the EC2 API.
func testAgentless(t *testing.T) {
	t.Parallel()
	const name = "web-1-from-azure"
	c := ec2Client(t)
	eni := primaryInterface(t, instanceNamed(t, c, "prod-web-1"))
	allowed, other := vm(t, "azure-dev-build-1").IP+"/32", vm(t, "azure-dev-build-2").IP+"/32"
	if rules, err := ingressCIDRs(t, c, eni); err != nil || slices.ContainsFunc(rules, func(r string) bool { return strings.HasSuffix(r, allowed) }) {
		t.Fatalf("before the policy, the security groups of prod-web-1 (%s) hold %v (%v)", eni, rules, err)
	}

	create(t, "member-1", federatedPolicy(ns, name, appliedToVM(awsAccount, "prod-web-1"),
		allowIn(443, remoteVM("member-2", "dev-build-1")), dropIn("0.0.0.0/0")))
	waitFNP(t, "member-1", ns, name, 30*time.Second, allOf(realized, resolved("member-2"), func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		if e := p.Status.EnforcementPoints; len(e) != 1 || e[0].Name != "agentless" || !e[0].Realized {
			return fmt.Errorf("enforcement points %+v, want agentless realized", e)
		}
		return nil
	}))
	start := time.Now()
	framework.EventuallyEvery(t, 60*time.Second, time.Second, func() error {
		rules, err := ingressCIDRs(t, c, eni)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(rules, func(r string) bool { return strings.HasSuffix(r, " tcp/443 from "+allowed) }) {
			return fmt.Errorf("the security groups of prod-web-1 (%s) hold %v, want tcp/443 from %s (azure-dev-build-1)", eni, rules, allowed)
		}
		if slices.ContainsFunc(rules, func(r string) bool { return strings.HasSuffix(r, other) }) {
			return fmt.Errorf("the security groups of prod-web-1 (%s) let in %s (azure-dev-build-2): %v", eni, other, rules)
		}
		return nil
	})
	t.Logf("the security group of prod-web-1 holds %s (%s after the policy was realized)", allowed, time.Since(start).Round(100*time.Millisecond))
}
