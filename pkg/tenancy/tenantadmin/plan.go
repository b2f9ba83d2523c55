package tenantadmin

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

// NamespaceLabels are the labels a tenant's Namespace must have, given
// those it has (nil: it does not exist): have's, tenancy's tenant label,
// the controller label of a dedicated tenant, and extra. It returns the
// labels it sets or changes, as "key=value", sorted; none when have
// already has them. It removes nothing: a tenant created with a dedicated
// controller keeps it.
func NamespaceLabels(have map[string]string, tenant string, dedicated bool, extra map[string]string) (map[string]string, []string) {
	want := maps.Clone(have)
	if want == nil {
		want = map[string]string{}
	}
	set := maps.Clone(extra)
	if set == nil {
		set = map[string]string{}
	}
	set[tenancyv1alpha1.LabelTenant] = "true"
	if dedicated {
		set[tenancyv1alpha1.LabelController] = tenant
	}
	var changed []string
	for k, v := range set {
		if old, ok := want[k]; !ok || old != v {
			changed = append(changed, k+"="+v)
		}
		want[k] = v
	}
	slices.Sort(changed)
	return want, changed
}

// AdminSubjects are the subjects of a tenant's RoleBinding: have's (those
// it has), then each user and group not among them, in the order given.
// It returns the subjects added, as "User name" or "Group name". Admins
// are only added: remove one by editing the RoleBinding.
func AdminSubjects(have []rbacv1.Subject, users, groups []string) ([]rbacv1.Subject, []string) {
	want := slices.Clone(have)
	var added []string
	add := func(kind, name string) {
		s := rbacv1.Subject{Kind: kind, APIGroup: rbacv1.GroupName, Name: name}
		if slices.ContainsFunc(want, func(h rbacv1.Subject) bool { return h.Kind == kind && h.Name == name }) {
			return
		}
		want = append(want, s)
		added = append(added, kind+" "+name)
	}
	for _, u := range users {
		add(rbacv1.UserKind, u)
	}
	for _, g := range groups {
		add(rbacv1.GroupKind, g)
	}
	return want, added
}

// AdminRoleRef is the roleRef of a tenant's RoleBinding.
func AdminRoleRef() rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenancyv1alpha1.TenantAdminRole}
}

// CheckBinding returns why an existing RoleBinding named AdminBinding
// cannot be the tenant's: it binds another role (a roleRef cannot change).
func CheckBinding(have *rbacv1.RoleBinding) error {
	if have.RoleRef != AdminRoleRef() {
		return fmt.Errorf("RoleBinding %s/%s binds %s %s, not ClusterRole %s: delete it (kubectl delete rolebinding -n %s %s) and run tenant create again",
			have.Namespace, have.Name, have.RoleRef.Kind, have.RoleRef.Name, tenancyv1alpha1.TenantAdminRole, have.Namespace, have.Name)
	}
	return nil
}

// errNoContainer: the installed Deployment has no container to copy.
var errNoContainer = errors.New("has no container")

// DedicatedDeployment is a tenant's own cloud controller: a copy of the
// installed cloud controller's Deployment, named
// DedicatedDeploymentName(tenant), whose Pods run the instance tenant over
// the Namespaces labelled tenancy.antreaplus.io/controller=<tenant>
// (TenancyArgs). Its labels are the installed one's, but managed-by
// ManagedBy (an upgrade of the release must not prune it) and the
// instance's label, which its selector adds to the installed selector so
// that no two Deployments select the same Pods. Its Pods keep the
// installed component label: the chart's NetworkPolicy admits them.
func DedicatedDeployment(installed *appsv1.Deployment, tenant string) (*appsv1.Deployment, error) {
	if len(installed.Spec.Template.Spec.Containers) == 0 {
		return nil, fmt.Errorf("the Deployment %s/%s %w", installed.Namespace, installed.Name, errNoContainer)
	}
	labels := func(have map[string]string) map[string]string {
		out := maps.Clone(have)
		if out == nil {
			out = map[string]string{}
		}
		out[federationv1alpha1.LabelManagedBy] = tenancyv1alpha1.ManagedByTenancy
		out[federationv1alpha1.LabelPartOf] = "antreaplus"
		out[tenancyv1alpha1.LabelInstance] = tenant
		return out
	}
	d := &appsv1.Deployment{}
	d.Name, d.Namespace = DedicatedDeploymentName(tenant), installed.Namespace
	d.Labels = labels(installed.Labels)
	installed.Spec.DeepCopyInto(&d.Spec)
	if d.Spec.Selector == nil {
		return nil, fmt.Errorf("the Deployment %s/%s has no selector", installed.Namespace, installed.Name)
	}
	d.Spec.Selector.MatchLabels = maps.Clone(d.Spec.Selector.MatchLabels)
	if d.Spec.Selector.MatchLabels == nil {
		d.Spec.Selector.MatchLabels = map[string]string{}
	}
	d.Spec.Selector.MatchLabels[tenancyv1alpha1.LabelInstance] = tenant
	d.Spec.Template.Labels = labels(d.Spec.Template.Labels)
	c := &d.Spec.Template.Spec.Containers[0]
	c.Args = TenancyArgs(c.Args, tenant)
	return d, nil
}

// The flags of the cloud controller that TenancyArgs replaces.
var replacedFlags = map[string]bool{"tenant-selector": true, "tenancy-instance": true, "leader-elect": true}

// valueFlags are those of replacedFlags that take a value (given as
// "--flag value" too); the others are booleans.
var valueFlags = map[string]bool{"tenant-selector": true, "tenancy-instance": true}

// TenancyArgs are a cloud controller's arguments for a tenant's own
// instance: args without --tenant-selector, --tenancy-instance (in either
// form, --flag=value or --flag value) and --leader-elect, then
// --tenancy-instance=<tenant> and --tenant-selector=DedicatedSelector(tenant).
// Leader election goes: its Lease is the shared instance's, which would
// let only one of them run; the instance's replicas share its tenants by
// their claims. Agentless enforcement (--policy-server) stays: the copy
// enforces and reports for the tenant's endpoints, and the policy
// controller merges its reports with the shared instance's.
func TenancyArgs(args []string, tenant string) []string {
	out := make([]string, 0, len(args)+2)
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, hasValue := flagOf(a)
		if !replacedFlags[name] {
			out = append(out, a)
			continue
		}
		if valueFlags[name] && !hasValue && i+1 < len(args) {
			i++ // the value is the next argument
		}
	}
	return append(out, "--tenancy-instance="+tenant, "--tenant-selector="+DedicatedSelector(tenant))
}

// flagOf is the name of a flag argument ("--v=2", "-v") and whether it
// holds its value; "" for an argument that is not a flag.
func flagOf(arg string) (string, bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return "", false
	}
	name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name, hasValue
}

// DeploymentUpToDate reports whether have (the dedicated Deployment as
// read) is want: want's labels (have may have more) and spec.
func DeploymentUpToDate(have, want *appsv1.Deployment) bool {
	for k, v := range want.Labels {
		if have.Labels[k] != v {
			return false
		}
	}
	return equality.Semantic.DeepEqual(have.Spec, want.Spec)
}
