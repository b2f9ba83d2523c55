package federation

import (
	"net/http"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// TestFederationAccountIsLeastPrivilege acts with the credentials a
// supervisor holds for a member, as a federation manager would.
func TestFederationAccountIsLeastPrivilege(t *testing.T) {
	form(t)
	ctx := testContext(t)
	member := clientFor(t, memberCredentials(t, "member-1", "member-2"))

	t.Run("holds the leader Lease", func(t *testing.T) {
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptrTo("member-1"), LeaseDurationSeconds: ptrTo[int32](10)},
		}
		if err := member.Create(ctx, lease); err != nil {
			t.Fatalf("create Lease: %v", err)
		}
		if err := member.Get(ctx, client.ObjectKeyFromObject(lease), lease); err != nil {
			t.Fatalf("get Lease: %v", err)
		}
		lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
		if err := member.Update(ctx, lease); err != nil {
			t.Fatalf("update Lease: %v", err)
		}
	})
	t.Run("Lease requests at the leader-election priority level", func(t *testing.T) {
		// The API server says which FlowSchema and priority level served a
		// request in its response headers (API Priority and Fairness).
		fs := &flowcontrolv1.FlowSchema{}
		if err := clusters.Client(t, "member-2").Get(ctx, client.ObjectKey{Name: federationv1alpha1.FederationFlowSchema}, fs); err != nil {
			t.Fatalf("the FlowSchema join writes: %v", err)
		}
		pl := &flowcontrolv1.PriorityLevelConfiguration{}
		if err := clusters.Client(t, "member-2").Get(ctx, client.ObjectKey{Name: federationv1alpha1.LeaderElectionPriorityLevel}, pl); err != nil {
			t.Fatalf("the API server's leader-election priority level: %v", err)
		}
		headers := func(do func(c client.Client) error) http.Header {
			t.Helper()
			cfg := memberCredentials(t, "member-1", "member-2")
			var got http.Header
			cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
				return roundTripFunc(func(r *http.Request) (*http.Response, error) {
					resp, err := rt.RoundTrip(r)
					if err == nil {
						got = resp.Header.Clone()
					}
					return resp, err
				})
			}
			if err := do(clientFor(t, cfg)); err != nil {
				t.Fatal(err)
			}
			return got
		}
		lease := headers(func(c client.Client) error {
			return c.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease}, &coordinationv1.Lease{})
		})
		if got := lease.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID); got != string(fs.UID) {
			t.Errorf("a Lease GET was served by FlowSchema %q, want %s (%s)", got, fs.Name, fs.UID)
		}
		if got := lease.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID); got != string(pl.UID) {
			t.Errorf("a Lease GET was served at priority level %q, want %s (%s)", got, pl.Name, pl.UID)
		}
		other := headers(func(c client.Client) error { return c.List(ctx, &mcsv1beta1.ServiceExportList{}) })
		if got := other.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID); got == "" || got == string(fs.UID) {
			t.Errorf("a list of ServiceExports was served by FlowSchema %q; want another than %s", got, fs.UID)
		}
	})
	t.Run("reads exports", func(t *testing.T) {
		if err := member.List(ctx, &mcsv1beta1.ServiceExportList{}); err != nil {
			t.Fatalf("list ServiceExports: %v", err)
		}
	})
	t.Run("cannot read Secrets", func(t *testing.T) {
		err := member.List(ctx, &corev1.SecretList{}, client.InNamespace(federationv1alpha1.SystemNamespace))
		if !apierrors.IsForbidden(err) {
			t.Fatalf("list Secrets: error %v, want 403", err)
		}
	})
	t.Run("cannot grant itself more", func(t *testing.T) {
		cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "escalate"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}}
		if err := member.Create(ctx, cr); !apierrors.IsForbidden(err) {
			t.Fatalf("create ClusterRole: error %v, want 403", err)
		}
	})

	tests := []struct {
		name   string
		attrs  authorizationv1.ResourceAttributes
		member string
		want   bool
	}{
		{"update the leader Lease", named(res("update", "coordination.k8s.io", "leases", federationv1alpha1.SystemNamespace), federationv1alpha1.LeaderLease), "member-2", true},
		{"update another Lease", named(res("update", "coordination.k8s.io", "leases", federationv1alpha1.SystemNamespace), "antreaplus-member-controller"), "member-2", false},
		{"list Leases (tenant claims, for the overlaps across members)", res("list", "coordination.k8s.io", "leases", federationv1alpha1.SystemNamespace), "member-2", true},
		{"list Leases elsewhere", res("list", "coordination.k8s.io", "leases", "kube-system"), "member-2", false},
		{"update a tenant's claim", named(res("update", "coordination.k8s.io", "leases", federationv1alpha1.SystemNamespace), "tenant-alpha"), "member-2", false},
		{"delete the leader Lease", res("delete", "coordination.k8s.io", "leases", federationv1alpha1.SystemNamespace), "member-2", false},
		{"Leases elsewhere", res("update", "coordination.k8s.io", "leases", "kube-system"), "member-2", false},
		{"watch ServiceExports", res("watch", "multicluster.x-k8s.io", "serviceexports", ""), "member-2", true},
		{"write ServiceExports", res("create", "multicluster.x-k8s.io", "serviceexports", "default"), "member-2", false},
		{"write ServiceImports", res("create", "multicluster.x-k8s.io", "serviceimports", "default"), "member-2", true},
		{"write EndpointSlices", res("update", "discovery.k8s.io", "endpointslices", "default"), "member-2", true},
		{"delete Services", res("delete", "", "services", "default"), "member-2", true},
		{"read Secrets", res("get", "", "secrets", federationv1alpha1.SystemNamespace), "member-2", false},
		{"read Pods", res("list", "", "pods", ""), "member-2", false},
		{"create namespaces", res("create", "", "namespaces", ""), "member-2", false},
		{"list nodes", res("list", "", "nodes", ""), "member-2", true},
		{"change its identity", res("update", "federation.antreaplus.io", "clustermemberships", ""), "member-2", false},
		{"write ServiceAccount tokens", res("create", "", "serviceaccounts", federationv1alpha1.SystemNamespace), "member-2", false},
		{"bind roles", res("create", "rbac.authorization.k8s.io", "clusterrolebindings", ""), "member-2", false},
		{"anything", res("*", "*", "*", ""), "member-2", false},
		{"a member's registry is not readable", res("list", "federation.antreaplus.io", "memberclusters", federationv1alpha1.SystemNamespace), "member-2", false},
		{"a supervisor's registry is readable", res("list", "federation.antreaplus.io", "memberclusters", federationv1alpha1.SystemNamespace), "member-1", true},
		{"a supervisor's registry Secrets are not", res("get", "", "secrets", federationv1alpha1.SystemNamespace), "member-1", false},
	}
	clients := map[string]client.Client{"member-2": member, "member-1": clientFor(t, memberCredentials(t, "member-1", "member-1"))}
	for _, tt := range tests {
		t.Run("may "+tt.name+"?", func(t *testing.T) {
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &tt.attrs}}
			if err := clients[tt.member].Create(ctx, review); err != nil {
				t.Fatal(err)
			}
			if review.Status.Allowed != tt.want {
				t.Fatalf("allowed = %t, want %t (%s)", review.Status.Allowed, tt.want, review.Status.Reason)
			}
		})
	}
	t.Run("the status subresource", func(t *testing.T) {
		attrs := res("update", "federation.antreaplus.io", "clustermemberships", "")
		attrs.Subresource = "status"
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}
		if err := member.Create(ctx, review); err != nil || !review.Status.Allowed {
			t.Fatalf("update clustermemberships/status: allowed %t, error %v", review.Status.Allowed, err)
		}
	})
}

func res(verb, group, resource, namespace string) authorizationv1.ResourceAttributes {
	return authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Namespace: namespace}
}

func ptrTo[T any](v T) *T { return &v }

// named limits resource attributes to one object.
func named(a authorizationv1.ResourceAttributes, name string) authorizationv1.ResourceAttributes {
	a.Name = name
	return a
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
