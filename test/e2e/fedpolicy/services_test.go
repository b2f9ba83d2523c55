package fedpolicy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// appliedToService applies the policy to the cloud-native services of an
// account whose tag role is role.
func appliedToService(account, role string) policyMod {
	return func(s *antreav1beta1.NetworkPolicySpec) {
		s.AppliedTo = append(s.AppliedTo, antreav1beta1.AppliedTo{ExternalEntitySelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{accountLabel: account, "tag.cloud.antreaplus.io/role": role}}})
	}
}

// testServiceIngress: a federated policy of member-1 on prod-orders, an
// RDS DB instance, lets Azure's dev-build-1 (exported by member-2) in: the
// cloud controller puts a managed group on the database beside its own,
// read here through the RDS and EC2 APIs, on the database's port alone.
func testServiceIngress(t *testing.T) {
	t.Parallel()
	const name = "orders-from-azure"
	const db = "prod-orders"
	c, r := ec2Client(t), rdsClient(t)
	allowed, other := vm(t, "azure-dev-build-1").IP+"/32", vm(t, "azure-dev-build-2").IP+"/32"
	before, err := dbIngressCIDRs(t, c, r, db)
	if err != nil || slices.ContainsFunc(before, func(r string) bool { return strings.HasSuffix(r, allowed) }) {
		t.Fatalf("before the policy, the security groups of %s hold %v (%v)", db, before, err)
	}

	create(t, "member-1", federatedPolicy(ns, name, appliedToService(awsAccount, "db"),
		allowIn(0, remoteVM("member-2", "dev-build-1")), dropIn("0.0.0.0/0")))
	waitFNP(t, "member-1", ns, name, 60*time.Second, allOf(realized, resolved("member-2"), func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		if e := p.Status.EnforcementPoints; len(e) != 1 || e[0].Name != "agentless" || !e[0].Realized {
			return fmt.Errorf("enforcement points %+v, want agentless realized", e)
		}
		return nil
	}))
	framework.EventuallyEvery(t, 60*time.Second, time.Second, func() error {
		rules, err := dbIngressCIDRs(t, c, r, db)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(rules, func(r string) bool { return strings.HasSuffix(r, " tcp/5432 from "+allowed) }) {
			return fmt.Errorf("the security groups of %s hold %v, want tcp/5432 (its port alone) from %s (azure-dev-build-1)", db, rules, allowed)
		}
		if slices.ContainsFunc(rules, func(r string) bool { return strings.HasSuffix(r, other) }) {
			return fmt.Errorf("the security groups of %s let in %s (azure-dev-build-2): %v", db, other, rules)
		}
		// The database keeps its own group.
		if len(rules) <= len(before) && len(before) > 0 {
			return fmt.Errorf("the security groups of %s hold %v; want the operator's rules %v kept beside ours", db, rules, before)
		}
		return nil
	})
	remove(t, "member-1", federatedPolicy(ns, name))
	framework.EventuallyEvery(t, 60*time.Second, time.Second, func() error {
		rules, err := dbIngressCIDRs(t, c, r, db)
		if err != nil {
			return err
		}
		if !slices.Equal(rules, before) {
			return fmt.Errorf("after the policy's deletion the security groups of %s hold %v; want %v", db, rules, before)
		}
		return nil
	})
}
