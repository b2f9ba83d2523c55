package federation

import (
	"bytes"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
)

func TestLeaveLeavesNothingBehindAndJoinAgainWorks(t *testing.T) {
	form(t)
	ctx := testContext(t)
	// A leader Lease, as a federation manager would hold it with the member's credentials.
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptrTo("member-1"), LeaseDurationSeconds: ptrTo[int32](10)},
	}
	leader := clientFor(t, memberCredentials(t, "member-1", "member-3"))
	if err := leader.Create(ctx, lease); err != nil {
		t.Fatal(err)
	}
	imports := writeImports(t, leader, clusters.Namespace(t, "member-3"))

	var progress bytes.Buffer
	sup := []membership.Cluster{cl(t, "member-1")}
	if err := membership.Leave(ctx, &progress, cl(t, "member-3"), sup, false); err != nil {
		t.Fatalf("leave: %v\n%s", err, progress.String())
	}
	t.Log(progress.String())
	if m := identity(t, "member-3"); m != nil {
		t.Errorf("member-3 still has an identity: %+v", m.Spec)
	}
	namespaceGone(t, "member-3")
	if left := managedObjects(t, "member-3"); len(left) > 0 {
		t.Errorf("left behind in member-3: %v", left)
	}
	for _, obj := range imports {
		if err := clusters.Client(t, "member-3").Get(ctx, client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
			t.Errorf("import %T %s left behind (err %v)", obj, obj.GetName(), err)
		}
	}
	if _, listed := registry(t, "member-1")["member-3"]; listed {
		t.Error("member-3 is still in the registry of member-1")
	}
	for _, obj := range managedObjects(t, "member-1") {
		if strings.Contains(obj, "member-3") {
			t.Errorf("left behind in member-1: %s", obj)
		}
	}
	if len(registry(t, "member-1")) != 2 || identity(t, "member-2") == nil {
		t.Error("leaving member-3 touched the other members")
	}

	id, err := membership.Join(ctx, logWriter{t}, cl(t, "member-3"), "", sup, membership.JoinOptions{})
	if err != nil || id != "member-3" {
		t.Fatalf("joining again after leave: id %q, error %v", id, err)
	}
	if _, listed := registry(t, "member-1")["member-3"]; !listed || identity(t, "member-3") == nil {
		t.Fatal("member-3 did not join again")
	}
}

func TestLeavingASupervisorNeedsForce(t *testing.T) {
	form(t)
	ctx := testContext(t)
	sup := []membership.Cluster{cl(t, "member-1")}
	err := membership.Leave(ctx, nil, cl(t, "member-1"), sup, false)
	mustContain(t, err, "member-1 is a supervisor and its registry holds 3 member(s): leaving deletes that registry")
	if len(registry(t, "member-1")) != 3 || identity(t, "member-1") == nil {
		t.Fatal("the refused leave changed member-1")
	}

	if err := membership.Leave(ctx, logWriter{t}, cl(t, "member-1"), sup, true); err != nil {
		t.Fatalf("forced leave: %v", err)
	}
	namespaceGone(t, "member-1")
	if left := managedObjects(t, "member-1"); len(left) > 0 {
		t.Errorf("left behind in member-1: %v", left)
	}
}

func TestLeaveRefusesWhileASupervisorIsUnreachable(t *testing.T) {
	form(t)
	ctx := testContext(t)
	dead := membership.Cluster{Name: "dead", Config: &rest.Config{Host: "https://127.0.0.1:1", Timeout: time.Second}}
	sup := []membership.Cluster{cl(t, "member-1"), dead}
	err := membership.Leave(ctx, nil, cl(t, "member-2"), sup, false)
	mustContain(t, err, "supervisors could not be reached: dead (")
	mustContain(t, err, "nothing was changed")
	if identity(t, "member-2") == nil {
		t.Fatal("the refused leave removed member-2's identity")
	}

	var progress bytes.Buffer
	if err := membership.Leave(ctx, &progress, cl(t, "member-2"), sup, true); err != nil {
		t.Fatalf("forced leave: %v", err)
	}
	if !strings.Contains(progress.String(), "dead: could not be reached") || !strings.Contains(progress.String(), "delete membercluster/member-2 secret/member-member-2") {
		t.Errorf("the forced leave does not say how to clean the unreachable supervisor:\n%s", progress.String())
	}
	if _, listed := registry(t, "member-1")["member-2"]; listed || identity(t, "member-2") != nil {
		t.Error("the forced leave did not remove member-2")
	}
}

// writeImports writes, as a leader would, a ServiceImport and its Service
// into a member's namespace, labelled as the federation's.
func writeImports(t *testing.T, leader client.Client, ns string) []client.Object {
	t.Helper()
	meta := metav1.ObjectMeta{Namespace: ns, Name: "web", Labels: map[string]string{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}}
	port := corev1.ServicePort{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}
	objs := []client.Object{
		&mcsv1beta1.ServiceImport{ObjectMeta: meta, Spec: mcsv1beta1.ServiceImportSpec{
			Type: mcsv1beta1.ClusterSetIP, Ports: []mcsv1beta1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}}}},
		&corev1.Service{ObjectMeta: *meta.DeepCopy(), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{port}}},
	}
	for _, o := range objs {
		if err := leader.Create(t.Context(), o); err != nil {
			t.Fatalf("writing %T as the leader: %v", o, err)
		}
	}
	return objs
}
