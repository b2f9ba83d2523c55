package entityimport

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/leadertest"
)

// TestImportFollowsScopes follows an EntityExport scoped by a selector over
// member labels into member-2, led here: nothing while member-2 is out of
// scope, imported once it is labelled in, withdrawn while member-2 refuses
// member-1 (its ClusterMembership's spec.imports), and withdrawn when the
// scope becomes one that cannot be read.
func TestImportFollowsScopes(t *testing.T) {
	e := euOnly(t, "scoped")
	a, b, ns, exp := e.a, e.b, e.ns, e.exp
	createEntity(t, a, ns, "nic-eu", web, "10.0.3.1")
	view, member2 := e.view, e.member2
	leadertest.Lead(t, newController(e.registry), "member-2", e.cb, view)
	stays(t, b, ns, "", 3*time.Second)
	waitWithheld(t, b, ns, "member-1 "+ns+"/eu-only NotInScope")

	view.Set(member2("eu"))
	waitRemote(t, b, ns, "member-1.nic-eu=10.0.3.1")
	waitWithheld(t, b, ns, "")

	setRefusal(t, b, &federationv1alpha1.ImportsSpec{RefuseFrom: []string{"member-1"}})
	waitRemote(t, b, ns, "")
	waitWithheld(t, b, ns, "member-1 "+ns+"/eu-only Refused")
	setRefusal(t, b, nil)
	waitRemote(t, b, ns, "member-1.nic-eu=10.0.3.1")
	waitWithheld(t, b, ns, "")

	// A scope that cannot be read exports nothing, never more.
	framework.Update(t, a, exp, func() {
		exp.Spec.Scope.ClusterSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "region", Operator: metav1.LabelSelectorOpIn}}}
	})
	waitRemote(t, b, ns, "")
}

// waitWithheld waits until member-2's ClusterMembership lists, of the
// EntityExports of Namespace ns, want as withheld ("<cluster> <ns>/<name>
// <reason>", joined by "; ").
func waitWithheld(t *testing.T, c client.Client, ns, want string) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, func() error {
		cm := &federationv1alpha1.ClusterMembership{}
		if err := c.Get(bg, client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); err != nil {
			return err
		}
		var got []string
		if cm.Status.Withheld != nil {
			for _, w := range cm.Status.Withheld.Entities {
				if w.Namespace == ns {
					got = append(got, fmt.Sprintf("%s %s/%s %s", w.Cluster, w.Namespace, w.Name, w.Reason))
				}
			}
		}
		if strings.Join(got, "; ") != want {
			return fmt.Errorf("withheld EntityExports of %s: %q, want %q", ns, got, want)
		}
		return nil
	})
}

// setRefusal sets what member-2's ClusterMembership refuses.
func setRefusal(t *testing.T, c client.Client, imports *federationv1alpha1.ImportsSpec) {
	t.Helper()
	cm := &federationv1alpha1.ClusterMembership{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName}}
	framework.Update(t, c, cm, func() { cm.Spec.Imports = imports })
}

// TestExportStatusSaysWhereItGoes leads member-1, the exporter, and reads
// its export's status as the scope, member-2's labels and member-2's
// refusal change: status.clusters lists the members reached and the
// Exported condition says why not the others.
func TestExportStatusSaysWhereItGoes(t *testing.T) {
	e := euOnly(t, "reached")
	a, b, exp := e.a, e.b, e.exp
	view, member2 := e.view, e.member2
	leadertest.Lead(t, newController(e.registry), "member-1", e.ca, view)

	waitReached(t, a, exp, "member-1", "True/Scoped: exported to 1 of 2 members: member-1 (scope region=eu); not in scope: member-2")
	view.Set(member2("eu"))
	waitReached(t, a, exp, "member-1,member-2", "True/Scoped: exported to 2 of 2 members: member-1, member-2 (scope region=eu)")
	setRefusal(t, b, &federationv1alpha1.ImportsSpec{RefuseFrom: []string{"member-1"}})
	waitReached(t, a, exp, "member-1", "False/Refused: exported to 1 of 2 members: member-1 (scope region=eu); refused by member-2 (their ClusterMembership spec.imports)")
	setRefusal(t, b, nil)
	framework.Update(t, a, exp, func() { exp.Spec.Scope = nil })
	waitReached(t, a, exp, "member-1,member-2", "True/Everywhere: exported to 2 of 2 members: member-1, member-2 (scope all)")
}

// scoped is the set-up of a scope test: an EntityExport "eu-only" of
// member-1 scoped to the members labelled region=eu, in a Namespace of both
// members, and a view where member-2 is labelled region=us.
type scoped struct {
	a, b     client.Client
	ns       string
	exp      *federationv1alpha1.EntityExport
	ca, cb   cluster.Cluster
	view     *leadertest.View
	registry *leadertest.Registry
	// member2 is member-2 in the view, labelled region.
	member2 func(region string) manager.MemberInfo
}

func euOnly(t *testing.T, namespace string) scoped {
	t.Helper()
	e := scoped{a: clusters.Client(t, "member-1"), b: clusters.Client(t, "member-2")}
	e.ns = sharedNamespace(t, namespace, "member-1", "member-2")
	e.exp = &federationv1alpha1.EntityExport{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "eu-only"},
		Spec: federationv1alpha1.EntityExportSpec{Scope: &federationv1alpha1.ExportScope{
			ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}}}}
	if err := e.a.Create(bg, e.exp); err != nil {
		t.Fatal(err)
	}
	framework.WriteMembership(t, e.b, "member-2", nil)
	e.ca, e.cb, e.view, e.registry = setup(t)
	e.member2 = func(region string) manager.MemberInfo {
		return manager.MemberInfo{ClusterID: "member-2", Cluster: e.cb, Reachable: true, Labels: map[string]string{"region": region}}
	}
	e.view.Set(e.member2("us"))
	return e
}

// waitReached waits until the export's status.clusters reads clusters and
// its Exported condition "<status>/<reason>: <message>".
func waitReached(t *testing.T, c client.Client, exp *federationv1alpha1.EntityExport, clusters, cond string) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, func() error {
		got := &federationv1alpha1.EntityExport{}
		if err := c.Get(bg, client.ObjectKeyFromObject(exp), got); err != nil {
			return err
		}
		var ids []string
		for _, cs := range got.Status.Clusters {
			ids = append(ids, cs.Cluster)
		}
		c := meta.FindStatusCondition(got.Status.Conditions, federationv1alpha1.ConditionExported)
		if c == nil {
			return fmt.Errorf("no Exported condition yet; clusters %v", ids)
		}
		if have := fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message); strings.Join(ids, ",") != clusters || have != cond {
			return fmt.Errorf("clusters %v, Exported %q; want %s, %q", ids, have, clusters, cond)
		}
		return nil
	})
}
