package federation

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
)

func TestJoinGivesIdentityAndRegistersInEverySupervisor(t *testing.T) {
	form(t)
	for _, tt := range []struct {
		name       string
		supervisor bool
	}{{"member-1", true}, {"member-2", false}, {"member-3", false}} {
		m := identity(t, tt.name)
		if m == nil || m.Spec.FederationID != "acme" || m.Spec.ClusterID != tt.name || m.Spec.Supervisor != tt.supervisor || m.Status.JoinTime == nil {
			t.Errorf("identity of %s = %+v", tt.name, m)
		}
	}
	reg := registry(t, "member-1")
	if len(reg) != 3 {
		t.Fatalf("registry of member-1 has %d entries, want 3", len(reg))
	}
	for _, name := range clusters.Names {
		e := reg[name]
		if e.Spec.Server != clusters.Config(t, name).Host || e.Spec.Supervisor != (name == "member-1") {
			t.Errorf("registry entry %s = %+v", name, e.Spec)
		}
		if e.Labels[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation {
			t.Errorf("registry entry %s labels = %v", name, e.Labels)
		}
		s := &corev1.Secret{}
		key := client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.MemberSecretName(name)}
		if err := clusters.Client(t, "member-1").Get(t.Context(), key, s); err != nil {
			t.Fatalf("credential Secret of %s: %v", name, err)
		}
		if len(s.Data["token"]) == 0 || !bytes.Equal(s.Data["ca.crt"], clusters.Config(t, name).CAData) {
			t.Errorf("credential Secret of %s lacks the token or the member's CA", name)
		}
	}
	if reg["member-2"].Labels["env"] != "test" {
		t.Errorf("member-2 labels = %v, want env=test", reg["member-2"].Labels)
	}
	// The member's own identity carries its labels too (for member-label selectors).
	if m := identity(t, "member-2"); m == nil || m.Labels["env"] != "test" || m.Labels[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation {
		t.Errorf("member-2 ClusterMembership labels = %v, want env=test and the managed-by label", m.GetLabels())
	}
}

func TestJoinAgainIsIdempotent(t *testing.T) {
	form(t)
	ctx := testContext(t)
	before := registry(t, "member-1")["member-2"]
	sup := []membership.Cluster{cl(t, "member-1")}
	id, err := membership.Join(ctx, logWriter{t}, cl(t, "member-2"), "", sup, membership.JoinOptions{})
	if err != nil || id != "member-2" {
		t.Fatalf("joining again: id %q, error %v", id, err)
	}
	after := registry(t, "member-1")
	if len(after) != 3 || after["member-2"].UID != before.UID || after["member-2"].Spec != before.Spec {
		t.Fatalf("joining again changed the registry: %+v -> %+v", before.Spec, after["member-2"].Spec)
	}
}

func TestJoinRefusesADuplicateClusterID(t *testing.T) {
	reset(t)
	ctx := testContext(t)
	sup := []membership.Cluster{cl(t, "member-1")}
	if err := membership.Create(ctx, logWriter{t}, "acme", sup, membership.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := membership.Join(ctx, logWriter{t}, cl(t, "member-2"), "", sup, membership.JoinOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := membership.Join(ctx, logWriter{t}, cl(t, "member-3"), "member-2", sup, membership.JoinOptions{})
	mustContain(t, err, "cluster ID member-2 is already used by the member at "+clusters.Config(t, "member-2").Host+": pick another --cluster-id")

	if m := identity(t, "member-3"); m != nil {
		t.Errorf("the refused join left an identity in member-3: %+v", m.Spec)
	}
	if left := managedObjects(t, "member-3"); len(left) > 0 {
		t.Errorf("the refused join left objects in member-3: %v", left)
	}
	if e := registry(t, "member-1")["member-2"]; e.Spec.Server != clusters.Config(t, "member-2").Host {
		t.Errorf("the refused join changed member-2's entry: %+v", e.Spec)
	}
}

func TestJoinRefusesASecondFederation(t *testing.T) {
	reset(t)
	ctx := testContext(t)
	acme := []membership.Cluster{cl(t, "member-1")}
	other := []membership.Cluster{cl(t, "member-3")}
	if err := membership.Create(ctx, logWriter{t}, "acme", acme, membership.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := membership.Join(ctx, logWriter{t}, cl(t, "member-2"), "", acme, membership.JoinOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := membership.Create(ctx, logWriter{t}, "other", other, membership.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	_, err := membership.Join(ctx, logWriter{t}, cl(t, "member-2"), "", other, membership.JoinOptions{})
	mustContain(t, err, "member-2 already belongs to federation acme: run 'antreaplus federation leave --context member-2' first")
	if _, listed := registry(t, "member-3")["member-2"]; listed {
		t.Error("the refused join registered member-2 in federation other")
	}
	err = membership.Create(ctx, logWriter{t}, "other", []membership.Cluster{cl(t, "member-1")}, membership.CreateOptions{})
	mustContain(t, err, "member-1 already belongs to federation acme")
	if m := identity(t, "member-2"); m.Spec.FederationID != "acme" {
		t.Errorf("member-2 now belongs to %s", m.Spec.FederationID)
	}
}

func TestCreateAddsASupervisorWithEveryKnownMember(t *testing.T) {
	reset(t)
	ctx := testContext(t)
	if err := membership.Create(ctx, logWriter{t}, "acme", []membership.Cluster{cl(t, "member-1")}, membership.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := membership.Join(ctx, logWriter{t}, cl(t, "member-3"), "eu-3", []membership.Cluster{cl(t, "member-1")}, membership.JoinOptions{}); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	both := []membership.Cluster{cl(t, "member-1"), cl(t, "member-2")}
	if err := membership.Create(ctx, &progress, "acme", both, membership.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Log(progress.String())
	for _, s := range []string{"member-1", "member-2"} {
		reg := registry(t, s)
		if len(reg) != 3 || !reg["member-1"].Spec.Supervisor || !reg["member-2"].Spec.Supervisor || reg["eu-3"].Spec.Supervisor {
			t.Errorf("registry of %s = %v", s, reg)
		}
	}
	if !strings.Contains(progress.String(), "member-2: registering member eu-3, known to member-1") {
		t.Errorf("progress does not say eu-3 was copied:\n%s", progress.String())
	}
	got := memberCredentials(t, "member-2", "eu-3")
	if err := clientFor(t, got).List(ctx, &federationv1alpha1.ClusterMembershipList{}); err != nil {
		t.Errorf("the copied credentials of eu-3 do not work: %v", err)
	}
}

func TestJoinNeedsASupervisor(t *testing.T) {
	reset(t)
	ctx := testContext(t)
	_, err := membership.Join(ctx, nil, cl(t, "member-2"), "", []membership.Cluster{cl(t, "member-1")}, membership.JoinOptions{FederationID: "acme"})
	mustContain(t, err, "member-1 is not a supervisor of any federation: make it one with 'antreaplus federation create --federation-id acme --supervisor member-1'")
	if err := clusters.Client(t, "member-2").Get(ctx, client.ObjectKey{Name: federationv1alpha1.SystemNamespace}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused join created the namespace in member-2 (err %v)", err)
	}
}
