package tenancy

import (
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// kind is one kind a tenant admin manages: how to make an object of it
// and list them.
type kind struct {
	name string
	make func(ns, name string) client.Object
	list func() client.ObjectList
}

// managed are the kinds a tenant admin manages in the tenant's Namespace.
var managed = []kind{
	{name: "Secret", make: func(ns, name string) client.Object { return secret(ns, name) },
		list: func() client.ObjectList { return &corev1.SecretList{} }},
	{name: "CloudProviderAccount", make: func(ns, name string) client.Object { return account(ns, name) },
		list: func() client.ObjectList { return &cloudv1alpha1.CloudProviderAccountList{} }},
	{name: "CloudEntitySelector", make: func(ns, name string) client.Object { return selector(ns, name) },
		list: func() client.ObjectList { return &cloudv1alpha1.CloudEntitySelectorList{} }},
	{name: "NetworkPolicy", make: func(ns, name string) client.Object { return antreaPolicy(ns, name, nil) },
		list: func() client.ObjectList { return &antreav1beta1.NetworkPolicyList{} }},
	{name: "FederatedNetworkPolicy", make: func(ns, name string) client.Object { return federatedPolicy(ns, name) },
		list: func() client.ObjectList { return &policyv1alpha1.FederatedNetworkPolicyList{} }},
}

// TestTenantAdmin: alice, bound by tenant create to antreaplus-tenant-admin
// in alpha, creates, updates and deletes each managed kind in alpha; each is
// refused her in beta (bob's tenant) and cluster-wide, and so is whatever
// reaches beyond alpha or belongs to the controllers.
func TestTenantAdmin(t *testing.T) {
	prepare(t)
	c := clientAs(t, alice)
	ctx := t.Context()
	for _, k := range managed {
		t.Run(k.name+" in alpha", func(t *testing.T) {
			o := k.make("alpha", "alice-"+lower(k.name))
			if err := c.Create(ctx, o); err != nil {
				t.Fatalf("create: %v", err)
			}
			o.SetLabels(map[string]string{"updated": "yes"})
			if err := c.Update(ctx, o); err != nil {
				t.Errorf("update: %v", err)
			}
			if err := c.List(ctx, k.list(), client.InNamespace("alpha")); err != nil {
				t.Errorf("list: %v", err)
			}
			if err := c.Delete(ctx, o); err != nil {
				t.Errorf("delete: %v", err)
			}
		})
		t.Run(k.name+" refused in beta and cluster-wide", func(t *testing.T) {
			o := k.make("beta", "alice-"+lower(k.name))
			refused(t, "create in beta", c.Create(ctx, o, client.DryRunAll))
			refused(t, "get in beta", c.Get(ctx, client.ObjectKeyFromObject(o), k.make("", "")))
			refused(t, "update in beta", c.Update(ctx, o, client.DryRunAll))
			refused(t, "delete in beta", c.Delete(ctx, o, client.DryRunAll))
			refused(t, "list in beta", c.List(ctx, k.list(), client.InNamespace("beta")))
			refused(t, "list cluster-wide", c.List(ctx, k.list()))
		})
	}
	t.Run("beyond alpha", func(t *testing.T) {
		for what, err := range map[string]error{
			"create a Namespace":          c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "alice-own"}}, client.DryRunAll),
			"bind cluster-admin in alpha": c.Create(ctx, binding("alpha", "alice-root", "cluster-admin", alice), client.DryRunAll),
			"make another tenant admin":   c.Create(ctx, binding("alpha", "alice-friend", "antreaplus-tenant-admin", "mallory"), client.DryRunAll),
			"create a Lease in antreaplus-system": c.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: "tenant-beta"}},
				client.DryRunAll),
			"read a Secret of antreaplus-system": c.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: "x"}, &corev1.Secret{}),
			"create a ClusterNetworkPolicy":      c.Create(ctx, clusterPolicy("alice-everywhere"), client.DryRunAll),
			"create a ClusterGroup":              c.Create(ctx, &antreav1beta1.ClusterGroup{ObjectMeta: metav1.ObjectMeta{Name: "alice-all"}}, client.DryRunAll),
			"create a Tier": c.Create(ctx, &antreav1beta1.Tier{ObjectMeta: metav1.ObjectMeta{Name: "alice-first"},
				Spec: antreav1beta1.TierSpec{Priority: 1}}, client.DryRunAll),
			"write an account's status":         c.Status().Update(ctx, account("alpha", "x"), client.DryRunAll),
			"write a VirtualMachine (imported)": c.Create(ctx, virtualMachine("alpha", "vm-x", "vpc-1"), client.DryRunAll),
			"write an ExternalEntity":           c.Create(ctx, entity("alpha", "ee-x", "10.0.0.9"), client.DryRunAll),
		} {
			refused(t, what, err)
		}
	})
	t.Run("what she reads and exports", func(t *testing.T) {
		for what, err := range map[string]error{
			"list VirtualMachines in alpha":   c.List(ctx, &cloudv1alpha1.VirtualMachineList{}, client.InNamespace("alpha")),
			"list ExternalEntities in alpha":  c.List(ctx, &antreav1alpha2.ExternalEntityList{}, client.InNamespace("alpha")),
			"list Events in alpha":            c.List(ctx, &corev1.EventList{}, client.InNamespace("alpha")),
			"create a ServiceExport in alpha": c.Create(ctx, serviceExport("alpha", "web"), client.DryRunAll),
		} {
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
		}
	})
}

// TestBobIsAliceMirror: bob manages beta and is refused alpha.
func TestBobIsAliceMirror(t *testing.T) {
	prepare(t)
	c := clientAs(t, bob)
	ctx := t.Context()
	if err := c.Create(ctx, account("beta", "bob"), client.DryRunAll); err != nil {
		t.Errorf("bob creating an account in beta: %v", err)
	}
	refused(t, "bob creating an account in alpha", c.Create(ctx, account("alpha", "bob"), client.DryRunAll))
	refused(t, "bob reading alpha's Secrets", c.List(ctx, &corev1.SecretList{}, client.InNamespace("alpha")))
}

// TestCloudAdmin: carol (antreaplus-cloud-admin, cluster-wide) manages
// accounts and their Secrets in both tenants, reads their inventory, and
// writes no selector or policy.
func TestCloudAdmin(t *testing.T) {
	prepare(t)
	c := clientAs(t, carol)
	ctx := t.Context()
	for _, ns := range []string{"alpha", "beta"} {
		s, a := secret(ns, "carol-credentials"), account(ns, "carol")
		for _, o := range []client.Object{s, a} {
			if err := c.Create(ctx, o); err != nil {
				t.Fatalf("carol creating %T in %s: %v", o, ns, err)
			}
		}
		a.Spec.PollIntervalSeconds = ptr.To[int32](120)
		if err := c.Update(ctx, a); err != nil {
			t.Errorf("carol updating the account in %s: %v", ns, err)
		}
		for _, o := range []client.Object{a, s} {
			if err := c.Delete(ctx, o); err != nil {
				t.Errorf("carol deleting %T in %s: %v", o, ns, err)
			}
		}
		refused(t, "carol creating a selector in "+ns, c.Create(ctx, selector(ns, "carol"), client.DryRunAll))
		refused(t, "carol creating a policy in "+ns, c.Create(ctx, antreaPolicy(ns, "carol", nil), client.DryRunAll))
	}
	if err := c.List(ctx, &cloudv1alpha1.VirtualMachineList{}); err != nil {
		t.Errorf("carol listing every VirtualMachine: %v", err)
	}
	refused(t, "carol creating a Namespace", c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "carol"}}, client.DryRunAll))
}

// TestAggregatedRoles: Kubernetes's edit (erin) and view (frank), bound in
// alpha, gain our kinds; view reads them and no Secret.
func TestAggregatedRoles(t *testing.T) {
	prepare(t)
	ctx := t.Context()
	e := clientAs(t, erin)
	for what, err := range map[string]error{
		"erin creating an account":            e.Create(ctx, account("alpha", "erin"), client.DryRunAll),
		"erin creating a selector":            e.Create(ctx, selector("alpha", "erin"), client.DryRunAll),
		"erin creating a federated policy":    e.Create(ctx, federatedPolicy("alpha", "erin"), client.DryRunAll),
		"erin listing the VirtualMachines":    e.List(ctx, &cloudv1alpha1.VirtualMachineList{}, client.InNamespace("alpha")),
		"erin creating a Secret (edit's own)": e.Create(ctx, secret("alpha", "erin"), client.DryRunAll),
	} {
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	refused(t, "erin in beta", e.Create(ctx, account("beta", "erin"), client.DryRunAll))
	f := clientAs(t, frank)
	for what, err := range map[string]error{
		"frank listing accounts":           f.List(ctx, &cloudv1alpha1.CloudProviderAccountList{}, client.InNamespace("alpha")),
		"frank listing VirtualMachines":    f.List(ctx, &cloudv1alpha1.VirtualMachineList{}, client.InNamespace("alpha")),
		"frank listing federated policies": f.List(ctx, &policyv1alpha1.FederatedNetworkPolicyList{}, client.InNamespace("alpha")),
	} {
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	refused(t, "frank reading Secrets", f.List(ctx, &corev1.SecretList{}, client.InNamespace("alpha")))
	refused(t, "frank creating an account", f.Create(ctx, account("alpha", "frank"), client.DryRunAll))
}

// TestClusterAdminPersona: dave (antreaplus-cluster-admin) runs tenant
// create, list and delete through a kubeconfig context impersonating him;
// he may not read Secrets, bind cluster-admin or run a dedicated
// controller.
func TestClusterAdminPersona(t *testing.T) {
	t.Parallel()
	kubeconfig := prepare(t)
	out, err := antreaplus(kubeconfig, "tenant", "create", "delta", "--admin-user", erin, "--context", asDave)
	if err != nil {
		t.Fatalf("dave's tenant create: %v\n%s", err, out)
	}
	t.Logf("dave's tenant create:\n%s", out)
	admin := adminClient(t)
	b := &rbacv1.RoleBinding{}
	if err := admin.Get(t.Context(), client.ObjectKey{Namespace: "delta", Name: "antreaplus-tenant-admin"}, b); err != nil ||
		len(b.Subjects) != 1 || b.Subjects[0].Name != erin || b.RoleRef.Name != "antreaplus-tenant-admin" {
		t.Errorf("delta's RoleBinding: %+v, %v", b, err)
	}
	out, err = antreaplus(kubeconfig, "tenant", "create", "epsilon", "--dedicated-controller", "--context", asDave)
	if err == nil || !strings.Contains(err.Error(), "needs a cluster administrator") {
		t.Errorf("dave's tenant create --dedicated-controller: %v\n%s", err, out)
	}
	if out, err := antreaplus(kubeconfig, "tenant", "list", "--context", asDave); err != nil || !strings.Contains(out, "delta") {
		t.Errorf("dave's tenant list: %v\n%s", err, out)
	}

	c := clientAs(t, dave)
	ctx := t.Context()
	refused(t, "dave reading a Secret in alpha", c.Get(ctx, client.ObjectKey{Namespace: "alpha", Name: "x"}, &corev1.Secret{}))
	refused(t, "dave listing Secrets", c.List(ctx, &corev1.SecretList{}))
	refused(t, "dave creating a ClusterRoleBinding", c.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "dave-root"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"}}, client.DryRunAll))
	refused(t, "dave creating a Deployment in antreaplus-system", c.Create(ctx, deployment(federationv1alpha1.SystemNamespace, "dave"), client.DryRunAll))
	// The escalation check, not a missing verb: he may create RoleBindings,
	// to the personas only.
	if err := c.Create(ctx, binding("delta", "dave-root", "cluster-admin", dave), client.DryRunAll); !apierrors.IsForbidden(err) {
		t.Errorf("dave binding cluster-admin in delta: %v, want 403", err)
	}

	out, err = antreaplus(kubeconfig, "tenant", "delete", "delta", "--context", asDave, "--timeout", "30s")
	if err != nil {
		t.Fatalf("dave's tenant delete: %v\n%s", err, out)
	}
	if err := admin.Get(ctx, client.ObjectKey{Name: "delta"}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("delta after tenant delete: %v", err)
	}
}

// refused fails the test unless err is RBAC's 403.
func refused(t *testing.T, what string, err error) {
	t.Helper()
	if !refusedByRBAC(err) {
		t.Errorf("%s: %v, want RBAC's 403", what, err)
	}
}

func lower(s string) string {
	out := []rune{}
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				out = append(out, '-')
			}
			r += 'a' - 'A'
		}
		out = append(out, r)
	}
	return string(out)
}
