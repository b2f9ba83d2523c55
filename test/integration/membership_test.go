package integration

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestMembershipIdentityIsImmutable(t *testing.T) {
	ctx := t.Context()
	cl := clusters.Client(t, "member-1")
	m := &federationv1alpha1.ClusterMembership{
		ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName},
		Spec:       federationv1alpha1.ClusterMembershipSpec{ClusterID: "us-west-1", FederationID: "acme"},
	}
	if err := cl.Create(ctx, m); err != nil {
		t.Fatalf("creating membership: %v", err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.WithoutCancel(ctx), m) })

	tests := []struct {
		name   string
		change func(*federationv1alpha1.ClusterMembership)
		want   string
	}{
		{
			name:   "clusterID changed while a member",
			change: func(m *federationv1alpha1.ClusterMembership) { m.Spec.ClusterID = "us-west-2" },
			want:   "clusterID cannot change while the cluster is a member",
		},
		{
			name:   "joining a second federation",
			change: func(m *federationv1alpha1.ClusterMembership) { m.Spec.FederationID = "other" },
			want:   "a cluster cannot join two federations",
		},
		{
			name:   "clusterID emptied",
			change: func(m *federationv1alpha1.ClusterMembership) { m.Spec.ClusterID = "" },
			want:   "clusterID must not be empty",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := m.DeepCopy()
			tt.change(changed)
			err := cl.Update(ctx, changed)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("update error = %v, want one containing %q", err, tt.want)
			}
		})
	}

	// Becoming a supervisor is allowed: the identity stays the same.
	promoted := m.DeepCopy()
	promoted.Spec.Supervisor = true
	if err := cl.Update(ctx, promoted); err != nil {
		t.Fatalf("making the member a supervisor: %v", err)
	}
	stored := &federationv1alpha1.ClusterMembership{}
	if err := cl.Get(ctx, client.ObjectKey{Name: m.Name}, stored); err != nil {
		t.Fatal(err)
	}
	if stored.Spec.ClusterID != "us-west-1" || stored.Spec.FederationID != "acme" || !stored.Spec.Supervisor {
		t.Fatalf("stored membership = %+v, want the original identity as supervisor", stored.Spec)
	}
}
