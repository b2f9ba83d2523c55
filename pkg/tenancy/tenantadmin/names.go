package tenantadmin

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// DedicatedDeploymentName is the Deployment of a tenant's own cloud
// controller, in ControllerNamespace.
func DedicatedDeploymentName(tenant string) string {
	return tenancyv1alpha1.CloudControllerDeployment + "-" + tenant
}

// DedicatedSelector is the --tenant-selector of a tenant's own controller:
// the Namespaces that name it.
func DedicatedSelector(tenant string) string { return tenancyv1alpha1.LabelController + "=" + tenant }

// reserved are the Namespaces that are never tenants: Kubernetes's own and
// AntreaPlus's.
var reserved = map[string]bool{"default": true, federationv1alpha1.SystemNamespace: true}

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
		if k == tenancyv1alpha1.LabelTenant || k == tenancyv1alpha1.LabelController {
			return fmt.Errorf("--label %s: tenant create sets it (use --dedicated-controller for %s)", k, tenancyv1alpha1.LabelController)
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
