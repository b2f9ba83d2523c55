package tenancy

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy/tenantadmin"
)

// run runs the CLI as the cluster's administrator and fails the test when
// it fails.
func run(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	out, err := antreaplus(kubeconfig, append(args, "--context", cluster)...)
	if err != nil {
		t.Fatalf("antreaplus %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TestCreateAgainChangesNothing: tenant create run again on alpha leaves
// it as it is; with one more admin it adds that admin alone.
func TestCreateAgainChangesNothing(t *testing.T) {
	kubeconfig := prepare(t)
	out := run(t, kubeconfig, "tenant", "create", "alpha", "--admin-user", alice)
	for _, want := range []string{"unchanged Namespace alpha", "unchanged RoleBinding alpha/antreaplus-tenant-admin",
		"Tenant alpha ready in member-1: admins User alice; managed by the shared cloud controller."} {
		if !strings.Contains(out, want) {
			t.Errorf("tenant create alpha again: no %q in\n%s", want, out)
		}
	}
	out = run(t, kubeconfig, "tenant", "create", "alpha", "--admin-user", alice, "--admin-group", "team-a")
	if !strings.Contains(out, "configured RoleBinding alpha/antreaplus-tenant-admin (added Group team-a)") ||
		!strings.Contains(out, "unchanged Namespace alpha") {
		t.Errorf("tenant create alpha with one more admin:\n%s", out)
	}
}

// TestTenantList: the listing's rows from real objects: a claimed tenant
// with accounts, VMs in two VPCs and policies, an unclaimed one, and a
// claim left by a deleted Namespace, expired and contended.
func TestTenantList(t *testing.T) {
	kubeconfig := prepare(t)
	run(t, kubeconfig, "tenant", "create", "kappa", "--admin-user", alice)
	ctx := t.Context()
	admin := adminClient(t)
	now := metav1.NewMicroTime(time.Now())
	for _, o := range []client.Object{
		secret("kappa", "aws-credentials"), account("kappa", "aws"),
		virtualMachine("kappa", "vm-1", "vpc-1"), virtualMachine("kappa", "vm-2", "vpc-2"), virtualMachine("kappa", "vm-3", "vpc-1"),
		antreaPolicy("kappa", "web", nil), federatedPolicy("kappa", "web-fed"),
		claimLease("kappa", "shared/cloud-controller-0", now, nil),
		claimLease("gone", "gamma/cloud-controller-gamma-0", metav1.NewMicroTime(now.Add(-time.Hour)),
			map[string]string{"contender.tenancy.antreaplus.io/shared": now.Format(time.RFC3339)}),
	} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
	out := run(t, kubeconfig, "tenant", "list", "-o", "json")
	var l tenantadmin.Listing
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &l); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rows := map[string]tenantadmin.Row{}
	for _, r := range l.Tenants {
		rows[r.Tenant] = r
	}
	for tenant, want := range map[string]tenantadmin.Row{
		"kappa": {Tenant: "kappa", Controller: "shared", Owner: "shared/cloud-controller-0", Accounts: 1, VPCs: 2, VMs: 3, Policies: 2},
		"beta":  {Tenant: "beta", Controller: "shared"},
		"gone": {Tenant: "gone", Controller: "gamma", Owner: "gamma/cloud-controller-gamma-0", OwnerExpired: true,
			Warnings: []string{"no Namespace", "contended by shared"}},
	} {
		got := rows[tenant]
		if got.Tenant != want.Tenant || got.Controller != want.Controller || got.Owner != want.Owner || got.OwnerExpired != want.OwnerExpired ||
			got.Accounts != want.Accounts || got.VPCs != want.VPCs || got.VMs != want.VMs || got.Policies != want.Policies ||
			!slices.Equal(got.Warnings, want.Warnings) {
			t.Errorf("row of %s: %+v, want %+v", tenant, got, want)
		}
	}
	table := run(t, kubeconfig, "tenant", "list")
	for _, want := range [][]string{
		{"TENANT", "CONTROLLER", "OWNER", "ACCOUNTS", "VPCS", "VMS", "POLICIES", "WARNINGS"},
		{"kappa", "shared", "shared/cloud-controller-0", "1", "2", "3", "2", "-"},
		{"gone", "gamma", "gamma/cloud-controller-gamma-0", "(expired)", "0", "0", "0", "0", "no", "Namespace;", "contended", "by", "shared"},
	} {
		if !hasRow(table, want) {
			t.Errorf("tenant list: no row %q in\n%s", want, table)
		}
	}
	t.Logf("tenant list:\n%s", table)
}

// TestTenantDelete: delete refuses a tenant that holds an account, and
// what is not a tenant; once the account is gone, it deletes the tenant
// and waits until its Namespace is gone.
func TestTenantDelete(t *testing.T) {
	t.Parallel()
	kubeconfig := prepare(t)
	run(t, kubeconfig, "tenant", "create", "lambda", "--admin-user", bob)
	ctx := t.Context()
	admin := adminClient(t)
	a := account("lambda", "aws")
	if err := admin.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	out, err := antreaplus(kubeconfig, "tenant", "delete", "lambda", "--context", cluster)
	if err == nil || !strings.Contains(err.Error(), "the tenant still holds CloudProviderAccounts: aws. Delete them first") {
		t.Errorf("deleting a tenant with an account: %v\n%s", err, out)
	}
	t.Logf("tenant delete lambda, with an account:\n%s", out)
	if err := admin.Get(ctx, client.ObjectKey{Name: "lambda"}, &corev1.Namespace{}); err != nil {
		t.Fatalf("lambda after a refused delete: %v", err)
	}
	for _, ns := range []string{"default", "kube-system"} {
		if _, err := antreaplus(kubeconfig, "tenant", "delete", ns, "--context", cluster); err == nil || !strings.Contains(err.Error(), "not a tenant") {
			t.Errorf("deleting %s: %v", ns, err)
		}
	}
	if _, err := antreaplus(kubeconfig, "tenant", "delete", "nosuch", "--context", cluster); err == nil || !strings.Contains(err.Error(), "no tenant nosuch") {
		t.Errorf("deleting a tenant that does not exist: %v", err)
	}
	if err := admin.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	out = run(t, kubeconfig, "tenant", "delete", "lambda", "--timeout", "30s")
	for _, want := range []string{"deleted RoleBinding lambda/antreaplus-tenant-admin", "deleted Namespace lambda", "Namespace lambda gone after",
		"Tenant lambda deleted from member-1."} {
		if !strings.Contains(out, want) {
			t.Errorf("tenant delete lambda: no %q in\n%s", want, out)
		}
	}
	if err := admin.Get(ctx, client.ObjectKey{Name: "lambda"}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("lambda after tenant delete: %v", err)
	}
}

// TestDedicatedController: a tenant created with --dedicated-controller is
// labelled for its own instance and gets a copy of the installed cloud
// controller running it; run again, nothing changes; delete removes the
// copy with the tenant.
func TestDedicatedController(t *testing.T) {
	t.Parallel()
	kubeconfig := prepare(t)
	ctx := t.Context()
	admin := adminClient(t)
	out := run(t, kubeconfig, "tenant", "create", "gamma", "--dedicated-controller", "--admin-group", "team-g")
	t.Logf("tenant create gamma --dedicated-controller:\n%s", out)
	for _, want := range []string{"created Namespace gamma (labels tenancy.antreaplus.io/controller=gamma, tenancy.antreaplus.io/tenant=true)",
		"created RoleBinding gamma/antreaplus-tenant-admin (admins Group team-g)",
		"created Deployment antreaplus-system/antreaplus-cloud-controller-gamma (instance gamma)",
		"managed by its own cloud controller, instance gamma."} {
		if !strings.Contains(out, want) {
			t.Errorf("tenant create gamma: no %q in\n%s", want, out)
		}
	}
	installed, d := &appsv1.Deployment{}, &appsv1.Deployment{}
	if err := admin.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: "antreaplus-cloud-controller"}, installed); err != nil {
		t.Fatal(err)
	}
	if err := admin.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: "antreaplus-cloud-controller-gamma"}, d); err != nil {
		t.Fatal(err)
	}
	args := d.Spec.Template.Spec.Containers[0].Args
	for _, flag := range []string{"--tenancy-instance", "--tenant-selector"} {
		if n := len(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return !strings.HasPrefix(a, flag+"=") })); n != 1 {
			t.Errorf("the dedicated controller has %d %s: %q", n, flag, args)
		}
	}
	if !slices.Contains(args, "--tenancy-instance=gamma") || !slices.Contains(args, "--tenant-selector=tenancy.antreaplus.io/controller=gamma") ||
		d.Spec.Template.Spec.Containers[0].Image != installed.Spec.Template.Spec.Containers[0].Image ||
		d.Spec.Template.Spec.ServiceAccountName != installed.Spec.Template.Spec.ServiceAccountName ||
		d.Labels["app.kubernetes.io/instance"] != "antreaplus" || d.Labels["app.kubernetes.io/managed-by"] != tenancyv1alpha1.ManagedByTenancy {
		t.Errorf("the dedicated controller: args %q, labels %v", args, d.Labels)
	}
	out = run(t, kubeconfig, "tenant", "create", "gamma", "--dedicated-controller", "--admin-group", "team-g")
	if strings.Count(out, "  unchanged ") != 3 || strings.Contains(out, "created") || strings.Contains(out, "configured") {
		t.Errorf("tenant create gamma again changed something:\n%s", out)
	}
	out = run(t, kubeconfig, "tenant", "delete", "gamma", "--timeout", "30s")
	t.Logf("tenant delete gamma:\n%s", out)
	if !strings.Contains(out, "deleted Deployment antreaplus-system/antreaplus-cloud-controller-gamma") {
		t.Errorf("tenant delete gamma:\n%s", out)
	}
	if err := admin.Get(ctx, client.ObjectKeyFromObject(d), &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
		t.Errorf("the dedicated controller after tenant delete: %v", err)
	}
}

// claimLease is the claim of a tenant as the controllers write it.
func claimLease(tenant, holder string, renew metav1.MicroTime, annotations map[string]string) *coordinationv1.Lease {
	instance, _, _ := strings.Cut(holder, "/")
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: "tenant-" + tenant, Annotations: annotations,
			Labels: map[string]string{"tenancy.antreaplus.io/lease": "claim", "tenancy.antreaplus.io/tenant": tenant, "tenancy.antreaplus.io/instance": instance}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), RenewTime: &renew, LeaseDurationSeconds: ptr.To[int32](15)},
	}
}

// hasRow: a line of the table has exactly these fields.
func hasRow(table string, fields []string) bool {
	for _, l := range strings.Split(table, "\n") {
		if slices.Equal(strings.Fields(l), fields) {
			return true
		}
	}
	return false
}
