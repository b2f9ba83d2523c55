package tenantadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

// DefaultDeleteTimeout bounds the wait until a tenant's Namespace is gone.
const DefaultDeleteTimeout = 2 * time.Minute

// DeleteOptions say what tenant to delete.
type DeleteOptions struct {
	// Tenant is the Namespace.
	Tenant string
	// Force deletes a tenant that still holds CloudProviderAccounts.
	Force bool
	// Timeout bounds the wait until the Namespace is gone:
	// DefaultDeleteTimeout when zero.
	Timeout time.Duration
	// Progress gets a line per object; nil: none.
	Progress io.Writer
}

// ErrHoldsAccounts is wrapped by Delete's error when the tenant still
// holds CloudProviderAccounts and Force is not set.
var ErrHoldsAccounts = errors.New("the tenant still holds CloudProviderAccounts")

// ErrNotTenant is wrapped by Delete's error when the Namespace is not
// labelled as a tenant.
var ErrNotTenant = errors.New("not a tenant")

// CheckDelete returns why a tenant may not be deleted: its Namespace is
// not labelled tenancy.antreaplus.io/tenant=true (tenant delete deletes
// tenants, not any Namespace), or it holds accounts (named) and force is
// not set.
func CheckDelete(ns Namespace, accounts []string, force bool) error {
	if ns.Labels[tenancyv1alpha1.LabelTenant] != "true" {
		return fmt.Errorf("namespace %s is %w (no label %s=true): delete it with kubectl if that is what you want",
			ns.Name, ErrNotTenant, tenancyv1alpha1.LabelTenant)
	}
	if len(accounts) > 0 && !force {
		return fmt.Errorf("%w: %s. Delete them first (kubectl delete cloudprovideraccounts -n %s --all) and let the cloud controller remove what they imported, or pass --force",
			ErrHoldsAccounts, strings.Join(accounts, ", "), ns.Name)
	}
	return nil
}

// Delete deletes a tenant: its dedicated cloud controller (if any), its
// RoleBinding and its Namespace, then waits until the Namespace is gone.
// It refuses what CheckDelete refuses. A tenant whose Namespace is already
// gone has only its dedicated controller deleted; none at all is an
// error.
func Delete(ctx context.Context, cfg *rest.Config, opts DeleteOptions) error {
	c, err := newClient(cfg)
	if err != nil {
		return err
	}
	p := progress{opts.Progress}
	ns := &corev1.Namespace{}
	err = c.Get(ctx, client.ObjectKey{Name: opts.Tenant}, ns)
	if apierrors.IsNotFound(err) {
		removed, err := deleteDedicated(ctx, c, opts.Tenant, false, p)
		if err != nil {
			return err
		}
		if !removed {
			return fmt.Errorf("no tenant %s: its Namespace does not exist", opts.Tenant)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading Namespace %s: %w", opts.Tenant, err)
	}
	var accounts cloudv1alpha1.CloudProviderAccountList
	if err := c.List(ctx, &accounts, client.InNamespace(opts.Tenant)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("listing the CloudProviderAccounts of %s: %w", opts.Tenant, err)
	}
	var names []string
	for _, a := range accounts.Items {
		names = append(names, a.Name)
	}
	if err := CheckDelete(Namespace{Name: ns.Name, Labels: ns.Labels}, names, opts.Force); err != nil {
		return err
	}
	if _, err := deleteDedicated(ctx, c, opts.Tenant, ns.Labels[tenancyv1alpha1.LabelController] == opts.Tenant, p); err != nil {
		return err
	}
	b := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: opts.Tenant, Name: tenancyv1alpha1.AdminBinding}}
	if err := c.Delete(ctx, b); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting RoleBinding %s/%s: %w", opts.Tenant, tenancyv1alpha1.AdminBinding, err)
	} else if err == nil {
		p.line("deleted RoleBinding %s/%s", opts.Tenant, tenancyv1alpha1.AdminBinding)
	}
	if ns.DeletionTimestamp == nil {
		if err := c.Delete(ctx, ns); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting Namespace %s: %w", opts.Tenant, err)
		}
		p.line("deleted Namespace %s", opts.Tenant)
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultDeleteTimeout
	}
	start := time.Now()
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, client.ObjectKey{Name: opts.Tenant}, &corev1.Namespace{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return fmt.Errorf("the Namespace %s is still there after %s: see what holds it (kubectl get namespace %s -o yaml, its status.conditions): %w",
			opts.Tenant, timeout, opts.Tenant, err)
	}
	p.line("Namespace %s gone after %s", opts.Tenant, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// deleteDedicated deletes the tenant's own cloud controller if it has
// one (a Deployment of that name that tenant create made), and says
// whether it did. A user who may not read Deployments of the controllers'
// namespace is refused only when the tenant names a controller of its own
// (dedicated).
func deleteDedicated(ctx context.Context, c client.Client, tenant string, dedicated bool, p progress) (bool, error) {
	d := &appsv1.Deployment{}
	name := DedicatedDeploymentName(tenant)
	err := c.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: name}, d)
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case apierrors.IsForbidden(err) && !dedicated:
		return false, nil
	case err != nil:
		return false, fmt.Errorf("reading the tenant's own cloud controller, Deployment %s/%s: %w", federationv1alpha1.SystemNamespace, name, err)
	}
	if d.Labels[federationv1alpha1.LabelManagedBy] != tenancyv1alpha1.ManagedByTenancy || d.Labels[tenancyv1alpha1.LabelInstance] != tenant {
		return false, fmt.Errorf("the Deployment %s/%s was not made by tenant create (labels %s=%s, %s=%s): left alone; delete it yourself if it is the tenant's",
			federationv1alpha1.SystemNamespace, name, federationv1alpha1.LabelManagedBy, tenancyv1alpha1.ManagedByTenancy, tenancyv1alpha1.LabelInstance, tenant)
	}
	if err := c.Delete(ctx, d, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("deleting Deployment %s/%s: %w", federationv1alpha1.SystemNamespace, name, err)
	}
	p.line("deleted Deployment %s/%s", federationv1alpha1.SystemNamespace, name)
	return true, nil
}

func (p progress) line(format string, args ...any) {
	if p.w != nil {
		fmt.Fprintf(p.w, "  "+format+"\n", args...)
	}
}
