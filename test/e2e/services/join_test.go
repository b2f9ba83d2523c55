package services

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
)

// TestJoinAcrossNamespaces exports Service pay of Namespace a (member-1)
// into the federated Service web of Namespace b (member-2's export): each
// member imports member-1's endpoints into b/web only where its Namespace
// b accepts Namespace a, and a/pay is imported nowhere. A member exporting
// b/web itself cannot also join it from a; the annotation removed, a/pay
// is its own federated Service again.
func TestJoinAcrossNamespaces(t *testing.T) {
	federation(t)
	a, b := sharedNamespace(t), sharedNamespace(t)
	pay := createService(t, "member-1", a, "pay", loadBalancer())
	setIngress(t, "member-1", pay, "203.0.113.40")
	web := createService(t, "member-2", b, "web", loadBalancer())
	setIngress(t, "member-2", web, "203.0.113.41")
	exportService(t, "member-2", b, "web", false)
	join := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: a, Name: "pay",
		Annotations: map[string]string{federationv1alpha1.AnnotationJoins: b + "/web"}}}
	if err := cl(t, "member-1").Create(bg, join); err != nil {
		t.Fatal(err)
	}
	sources := func(want ...string) func(string, imported) error {
		return func(_ string, i imported) error {
			if i.imp == nil || !slices.Equal(i.sources(), want) {
				return fmt.Errorf("import %v from %v, want one from %v", i.imp != nil, i.sources(), want)
			}
			return nil
		}
	}
	accept := func(member string, yes bool) {
		update(t, member, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: b}}, func(o client.Object) {
			v := ""
			if yes {
				v = "true"
			}
			o.SetLabels(withKey(o.GetLabels(), exportscope.AcceptLabel(a), v))
		})
	}
	// Only member-3's b accepts a.
	accept("member-3", true)
	waitImported(t, importLimit, b, "web", []string{"member-3"}, sources("member-1", "member-2"))
	waitImported(t, importLimit, b, "web", []string{"member-1", "member-2"}, sources("member-2"))
	waitImported(t, importLimit, a, "pay", clusters.Names, gone)
	msg := waitExportedOf(t, "member-1", a, "pay", "True/Joined")
	if !strings.Contains(msg, "joins "+b+"/web") || !strings.Contains(msg, "not accepted in member-1") {
		t.Errorf("Exported of the joining export: %s", msg)
	}

	// member-2's b accepts a too.
	accept("member-2", true)
	waitImported(t, importLimit, b, "web", []string{"member-2", "member-3"}, sources("member-1", "member-2"))

	// member-2 cannot join b/web from a: it exports b/web itself.
	dup := createService(t, "member-2", a, "pay", loadBalancer())
	setIngress(t, "member-2", dup, "203.0.113.42")
	dupExp := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: a, Name: "pay",
		Annotations: map[string]string{federationv1alpha1.AnnotationJoins: b + "/web"}}}
	if err := cl(t, "member-2").Create(bg, dupExp); err != nil {
		t.Fatal(err)
	}
	if msg := waitExportedOf(t, "member-2", a, "pay", "False/JoinRefused"); !strings.Contains(msg, "member-2 already gives "+b+"/web its export "+b+"/web") {
		t.Errorf("Exported of member-2's second export: %s", msg)
	}
	waitImported(t, importLimit, b, "web", []string{"member-2", "member-3"}, sources("member-1", "member-2"))
	unexport(t, "member-2", a, "pay")

	// Back to its own name.
	setExportAnnotationOf(t, "member-1", a, "pay", federationv1alpha1.AnnotationJoins, "")
	waitImported(t, importLimit, a, "pay", clusters.Names, sources("member-1"))
	waitImported(t, importLimit, b, "web", clusters.Names, sources("member-2"))
}
