package tenantadmin

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"antreaplus.io/antreaplus/internal/names"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// The persona ClusterRoles of the chart (templates/personas.yaml).
const (
	// TenantAdminRole: a tenant's administrators, bound in its Namespace.
	TenantAdminRole = "antreaplus-tenant-admin"
	// CloudAdminRole: cloud accounts and their Secrets, wherever bound.
	CloudAdminRole = "antreaplus-cloud-admin"
	// ClusterAdminRole: creates, lists and deletes tenants (and a Role of
	// the same name in antreaplus-system reads the claims).
	ClusterAdminRole = "antreaplus-cluster-admin"
)

// Names and labels of what Create makes.
const (
	// AdminBinding is the RoleBinding, in the tenant's Namespace, of its
	// administrators to TenantAdminRole.
	AdminBinding = "antreaplus-tenant-admin"
	// CloudController is the Deployment the chart's cloud role installs in
	// antreaplus-system: a dedicated controller is a copy of it.
	CloudController = "antreaplus-cloud-controller"
	// ManagedBy is the app.kubernetes.io/managed-by label of what Create
	// makes. It is not the release's ("antreaplus"): an upgrade prunes the
	// release's objects its chart lacks, and must keep the dedicated
	// controllers. Uninstall deletes them with the namespace
	// antreaplus-system.
	ManagedBy = "antreaplus-tenancy"
	// ManagedByLabel is the label ManagedBy is the value of.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// PartOfLabel marks everything of AntreaPlus.
	PartOfLabel = "app.kubernetes.io/part-of"
	// ControllerNamespace holds the controllers and the claim Leases.
	ControllerNamespace = names.Namespace
)

// DedicatedDeploymentName is the Deployment of a tenant's own cloud
// controller, in ControllerNamespace.
func DedicatedDeploymentName(tenant string) string { return CloudController + "-" + tenant }

// DedicatedSelector is the --tenant-selector of a tenant's own controller:
// the Namespaces that name it.
func DedicatedSelector(tenant string) string { return tenancy.LabelController + "=" + tenant }

// reserved are the Namespaces that are never tenants: Kubernetes's own and
// AntreaPlus's.
var reserved = map[string]bool{"default": true, ControllerNamespace: true}

// CheckName returns why tenant cannot be a tenant's name, nil when it can:
// a Namespace name (DNS label) that is not the cluster's or AntreaPlus's,
// and with a dedicated controller not the shared instance's name.
func CheckName(tenant string, dedicated bool) error {
	if errs := validation.IsDNS1123Label(tenant); len(errs) > 0 {
		return fmt.Errorf("tenant name %q: %s", tenant, strings.Join(errs, "; "))
	}
	if reserved[tenant] || strings.HasPrefix(tenant, "kube-") {
		return fmt.Errorf("tenant name %q: the Namespace is the cluster's or AntreaPlus's own, never a tenant", tenant)
	}
	if dedicated && tenant == tenancy.DefaultInstance {
		return fmt.Errorf("tenant name %q: it names the chart's shared controller instance; a tenant with a controller of its own needs another name", tenant)
	}
	return nil
}

// CheckLabels returns why the labels cannot be set on a tenant's
// Namespace: invalid keys or values, or tenancy's own labels, which
// Create sets (use Dedicated for the controller's).
func CheckLabels(labels map[string]string) error {
	for k, v := range labels {
		if k == tenancy.LabelTenant || k == tenancy.LabelController {
			return fmt.Errorf("--label %s: tenant create sets it (use --dedicated-controller for %s)", k, tenancy.LabelController)
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("--label %s=%s: key: %s", k, v, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("--label %s=%s: value: %s", k, v, strings.Join(errs, "; "))
		}
	}
	return nil
}
