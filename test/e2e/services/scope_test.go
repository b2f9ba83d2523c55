package services

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/test/framework"
)

// supervisors hold the registry whose labels scopes select.
var supervisors = []string{"member-1", "member-2"}

// TestScopedExport exports a Service of member-1 to some members only and
// moves its scope: by ClusterID, by a registry label added and removed,
// refused by an importer, and a scope that does not parse. Every step is
// checked in every member: the import (ServiceImport, derived Service,
// slices) where the export reaches, nothing where it does not, and the
// exporter's own import throughout (it is in its own clusterset).
func TestScopedExport(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	exportLBScoped(t, ns, "pay", "203.0.113.20", "member-2")
	// expect checks that the import is in exactly the members of in, and
	// that the exporter's Exported condition says so.
	expect := func(step string, in []string, exported string) {
		t.Helper()
		var out []string
		for _, m := range []string{"member-1", "member-2", "member-3"} {
			if !slices.Contains(in, m) {
				out = append(out, m)
			}
		}
		start := time.Now()
		waitImported(t, importLimit, ns, "pay", in, fromMember1)
		waitImported(t, importLimit, ns, "pay", out, gone)
		got := waitExported(t, ns, "pay", exported)
		// What does not reach a member is named in its ClusterMembership.
		for _, m := range in {
			waitWithheldService(t, m, ns, "pay", "")
		}
		for _, m := range out {
			reason := "NotInScope"
			if exported == "False/Refused" && m == "member-2" { // the step where member-2 refuses member-1
				reason = "Refused"
			}
			waitWithheldService(t, m, ns, "pay", reason)
		}
		t.Logf("%s: imported in %v, not in %v (%s); Exported: %s", step, in, out, time.Since(start).Round(time.Millisecond), got)
	}
	expect("to member-2", []string{"member-1", "member-2"}, "True/Scoped")
	// Nothing is written where the export does not go, also a while later.
	time.Sleep(2 * time.Second)
	waitImported(t, time.Second, ns, "pay", []string{"member-3"}, gone)

	// A label added to member-3's registry entry brings it in scope.
	setExportAnnotation(t, ns, "pay", federationv1alpha1.AnnotationExportToSelector, "tier=payments")
	expect("selector matching nobody", []string{"member-1", "member-2"}, "True/Scoped")
	labelMember(t, "member-3", "tier", "payments")
	expect("member-3 labelled in", []string{"member-1", "member-2", "member-3"}, "True/Scoped")
	labelMember(t, "member-3", "tier", "")
	expect("member-3 labelled out", []string{"member-1", "member-2"}, "True/Scoped")

	// member-2 refuses member-1's exports: withdrawn there, said on the export.
	refuse(t, "member-2", []string{"member-1"})
	expect("refused by member-2", []string{"member-1"}, "False/Refused")
	refuse(t, "member-2", nil)
	expect("refusal lifted", []string{"member-1", "member-2"}, "True/Scoped")

	// A scope that does not parse reaches the exporter alone, never more.
	setExportAnnotation(t, ns, "pay", federationv1alpha1.AnnotationExportToSelector, "tier in (payments")
	expect("invalid selector", []string{"member-1"}, "False/InvalidScope")

	// No scope: every member.
	setExportAnnotation(t, ns, "pay", federationv1alpha1.AnnotationExportToSelector, "")
	setExportAnnotation(t, ns, "pay", federationv1alpha1.AnnotationExportToClusters, "")
	expect("scope removed", []string{"member-1", "member-2", "member-3"}, "True/Everywhere")
}

// waitWithheldService waits until member's ClusterMembership lists
// member-1's export of ns/name as withheld with reason ("": not listed).
func waitWithheldService(t *testing.T, member, ns, name, reason string) {
	t.Helper()
	framework.Eventually(t, importLimit, func() error {
		cm := &federationv1alpha1.ClusterMembership{}
		if err := cl(t, member).Get(bg, client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); err != nil {
			return err
		}
		got := ""
		if cm.Status.Withheld != nil {
			for _, w := range cm.Status.Withheld.Services {
				if w.Cluster == "member-1" && w.Namespace == ns && w.Name == name {
					got = w.Reason
				}
			}
		}
		if got != reason {
			return fmt.Errorf("%s lists member-1's export of %s/%s as withheld %q, want %q", member, ns, name, got, reason)
		}
		return nil
	})
}

// exportLBScoped exports a LoadBalancer Service of member-1 (ingress ip)
// to the members listed.
func exportLBScoped(t *testing.T, ns, name, ip, to string) {
	t.Helper()
	lb := createService(t, "member-1", ns, name, loadBalancer())
	setIngress(t, "member-1", lb, ip)
	e := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Annotations: map[string]string{federationv1alpha1.AnnotationExportToClusters: to}}}
	if err := cl(t, "member-1").Create(bg, e); err != nil {
		t.Fatal(err)
	}
}

// fromMember1 checks a member's import holds member-1's export alone.
func fromMember1(_ string, i imported) error {
	if i.imp == nil || strings.Join(i.sources(), ",") != "member-1" {
		return fmt.Errorf("import %v from %v, want one from member-1", i.imp != nil, i.sources())
	}
	return nil
}

// waitExported waits until member-1's export has the Exported condition
// want ("True/Scoped") and returns its message.
func waitExported(t testing.TB, ns, name, want string) string {
	t.Helper()
	return waitExportedOf(t, "member-1", ns, name, want)
}

// waitExportedOf waits until cluster's export has the Exported condition
// want, written for the scope its annotations say now, and returns its message.
func waitExportedOf(t testing.TB, cluster, ns, name, want string) string {
	t.Helper()
	var msg string
	framework.Eventually(t, 30*time.Second, func() error {
		e := &mcsv1beta1.ServiceExport{}
		if err := cl(t, cluster).Get(bg, client.ObjectKey{Namespace: ns, Name: name}, e); err != nil {
			return err
		}
		c := meta.FindStatusCondition(e.Status.Conditions, federationv1alpha1.ConditionExported)
		if c == nil {
			return fmt.Errorf("no Exported condition yet")
		}
		msg = c.Message
		if got := string(c.Status) + "/" + c.Reason; got != want {
			return fmt.Errorf("Exported %s (%s), want %s", got, c.Message, want)
		}
		// A scope change keeps the generation: the condition must name the scope set now.
		if scope, err := exportscope.FromAnnotations(e.Annotations); c.Reason != federationv1alpha1.ReasonJoinRefused && !exportscope.Describes(*c, scope, err) {
			return fmt.Errorf("Exported is not written for the scope %s (%s) yet: %s", scope, fmt.Sprint(err), c.Message)
		}
		return nil
	})
	return msg
}

// setExportAnnotation sets (or with "" removes) an annotation of member-1's export.
func setExportAnnotation(t testing.TB, ns, name, key, value string) {
	t.Helper()
	setExportAnnotationOf(t, "member-1", ns, name, key, value)
}

// setExportAnnotationOf sets (or with "" removes) an annotation of cluster's export.
func setExportAnnotationOf(t testing.TB, cluster, ns, name, key, value string) {
	t.Helper()
	update(t, cluster, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, func(o client.Object) {
		o.SetAnnotations(withKey(o.GetAnnotations(), key, value))
	})
}

// withKey is m with key set to value, or removed when value is "".
func withKey(m map[string]string, key, value string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	if value == "" {
		delete(m, key)
	} else {
		m[key] = value
	}
	return m
}

// labelMember sets (or with "" removes) a label of a member's registry
// entry in every supervisor, as 'federation join --label' writes them.
func labelMember(t testing.TB, member, key, value string) {
	t.Helper()
	for _, s := range supervisors {
		update(t, s, &federationv1alpha1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: member}},
			func(o client.Object) { o.SetLabels(withKey(o.GetLabels(), key, value)) })
	}
	if value != "" {
		t.Cleanup(func() { labelMember(t, member, key, "") })
	}
}

// refuse makes member refuse the exports of the given members (none: lift it).
func refuse(t testing.TB, member string, from []string) {
	t.Helper()
	update(t, member, &federationv1alpha1.ClusterMembership{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName}}, func(o client.Object) {
		cm := o.(*federationv1alpha1.ClusterMembership)
		cm.Spec.Imports = nil
		if len(from) > 0 {
			cm.Spec.Imports = &federationv1alpha1.ImportsSpec{RefuseFrom: from}
		}
	})
	if len(from) > 0 {
		t.Cleanup(func() { refuse(t, member, nil) })
	}
}

// update reads o in cluster, changes it and writes it, again on a conflict (framework.Update).
func update(t testing.TB, cluster string, o client.Object, change func(client.Object)) {
	t.Helper()
	framework.Update(t, cl(t, cluster), o, func() { change(o) })
}

// TestExporterImportsItsOwnHeadlessExport exports a headless Service from
// member-1 alone: member-1 is in its own clusterset, so it holds the
// ServiceImport and the MCS slices of its own Pods (source-cluster
// member-1) as every other member does, and its DNS server answers from them.
func TestExporterImportsItsOwnHeadlessExport(t *testing.T) {
	federation(t)
	ns := sharedNamespace(t)
	createService(t, "member-1", ns, "solo", func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone })
	createPod(t, "member-1", ns, "solo")
	exportService(t, "member-1", ns, "solo", true)
	start := time.Now()
	waitImported(t, importLimit, ns, "solo", []string{"member-1", "member-2", "member-3"}, func(_ string, i imported) error {
		if i.imp == nil || i.imp.Spec.Type != mcsv1beta1.Headless {
			return fmt.Errorf("no headless ServiceImport (%v)", i.imp)
		}
		if eps := i.endpoints("member-1"); len(eps) != 1 {
			return fmt.Errorf("endpoints from member-1: %v, want the one Pod", eps)
		}
		return nil
	})
	t.Logf("the exporter and both other members import their Pod in %s", time.Since(start).Round(time.Millisecond))
}

// TestScopeChangesAcrossLeaderKill changes an export's scope while the
// leader of the member it moves into is killed (-9), and again while that
// manager comes back and takes its share back: the member gains the
// import from the surviving leader, the member moved out loses it, and
// once the leaders settle nothing stale or missing is left anywhere.
func TestScopeChangesAcrossLeaderKill(t *testing.T) {
	f := federation(t)
	ns := sharedNamespace(t)
	exportLBScoped(t, ns, "ledger", "203.0.113.21", "member-2")
	waitImported(t, importLimit, ns, "ledger", []string{"member-1", "member-2"}, fromMember1)
	waitImported(t, importLimit, ns, "ledger", []string{"member-3"}, gone)

	leaders := f.WaitSettled(t, time.Minute)
	victim := leaders["member-3"]
	survivor := ""
	for _, s := range f.Supervisors {
		if s != victim {
			survivor = s
		}
	}
	f.Signal(t, victim, syscall.SIGKILL)
	t.Cleanup(func() {
		if f.ManagerPid(victim) == 0 {
			f.Restart(t, victim)
		}
	})
	start := time.Now()
	setExportAnnotation(t, ns, "ledger", federationv1alpha1.AnnotationExportToClusters, "member-2,member-3")
	waitImported(t, importLimit, ns, "ledger", []string{"member-1", "member-2", "member-3"}, fromMember1)
	t.Logf("%s's manager killed; member-3 moved into the scope and imported by %s after %s",
		victim, survivor, time.Since(start).Round(100*time.Millisecond))

	f.Restart(t, victim)
	setExportAnnotation(t, ns, "ledger", federationv1alpha1.AnnotationExportToClusters, "member-3")
	waitImported(t, importLimit, ns, "ledger", []string{"member-1", "member-3"}, fromMember1)
	waitImported(t, importLimit, ns, "ledger", []string{"member-2"}, gone)
	f.WaitSettled(t, time.Minute)
	before := snapshot(t, ns, "ledger")
	time.Sleep(5 * time.Second)
	if after := snapshot(t, ns, "ledger"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the imports changed after the leaders settled:\n before %v\n after  %v", before, after)
	}
	waitImported(t, time.Second, ns, "ledger", []string{"member-1", "member-3"}, fromMember1)
	waitImported(t, time.Second, ns, "ledger", []string{"member-2"}, gone)
	waitExported(t, ns, "ledger", "True/Scoped")
}
