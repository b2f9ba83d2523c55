package entityimport

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	a, b := clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	ns := sharedNamespace(t, "scoped", "member-1", "member-2")
	createEntity(t, a, ns, "nic-eu", web, "10.0.3.1")
	exp := &federationv1alpha1.EntityExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "eu-only"},
		Spec: federationv1alpha1.EntityExportSpec{Scope: &federationv1alpha1.ExportScope{
			ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}}}}
	if err := a.Create(bg, exp); err != nil {
		t.Fatal(err)
	}
	framework.WriteMembership(t, b, "member-2", nil)

	_, cb, view, registry := setup(t)
	member2 := func(region string) manager.MemberInfo {
		return manager.MemberInfo{ClusterID: "member-2", Cluster: cb, Reachable: true, Labels: map[string]string{"region": region}}
	}
	view.Set(member2("us"))
	leadertest.Lead(t, newController(registry), "member-2", cb, view)
	stays(t, b, ns, "", 3*time.Second)

	view.Set(member2("eu"))
	waitRemote(t, b, ns, "member-1.nic-eu=10.0.3.1")

	setRefusal(t, b, &federationv1alpha1.ImportsSpec{RefuseFrom: []string{"member-1"}})
	waitRemote(t, b, ns, "")
	setRefusal(t, b, nil)
	waitRemote(t, b, ns, "member-1.nic-eu=10.0.3.1")

	// A scope that cannot be read exports nothing, never more.
	framework.Update(t, a, exp, func() {
		exp.Spec.Scope.ClusterSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "region", Operator: metav1.LabelSelectorOpIn}}}
	})
	waitRemote(t, b, ns, "")
}

// setRefusal sets what member-2's ClusterMembership refuses.
func setRefusal(t *testing.T, c client.Client, imports *federationv1alpha1.ImportsSpec) {
	t.Helper()
	cm := &federationv1alpha1.ClusterMembership{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName}}
	framework.Update(t, c, cm, func() { cm.Spec.Imports = imports })
}
