package tenantadmin

import (
	"context"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
)

// CreateOptions say what tenant to create.
type CreateOptions struct {
	// Tenant is the Namespace.
	Tenant string
	// AdminUsers and AdminGroups are bound to TenantAdminRole in it
	// (added to those already bound).
	AdminUsers, AdminGroups []string
	// Dedicated gives the tenant a cloud controller of its own.
	Dedicated bool
	// Labels are set on the Namespace besides tenancy's.
	Labels map[string]string
	// Progress gets a line per object; nil: none.
	Progress io.Writer
}

// Outcome is what Create did to one object.
type Outcome string

// Outcomes of Create.
const (
	Created    Outcome = "created"
	Configured Outcome = "configured"
	Unchanged  Outcome = "unchanged"
)

// CreateResult is what Create did.
type CreateResult struct {
	// Namespace, Binding and Deployment (Dedicated only; "" otherwise) are
	// what was done to each.
	Namespace, Binding, Deployment Outcome
	// Admins are the subjects bound, as "User name" or "Group name".
	Admins []string
	// Controller is the instance that should manage the tenant.
	Controller string
}

// newClient is a client of the cluster that knows every project type.
func newClient(cfg *rest.Config) (client.Client, error) {
	s, err := scheme.New()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
	}
	return c, nil
}

// Create makes (or brings up to date) a tenant: its Namespace labelled
// tenancy.antreaplus.io/tenant=true (and controller=<tenant> when
// Dedicated) with opts.Labels, the RoleBinding AdminBinding of its admins
// to TenantAdminRole, and when Dedicated its cloud controller, a copy of
// the installed one. It changes nothing that is as it should be, and
// fails before writing anything when the chart's personas, or for
// Dedicated the installed cloud controller, are missing.
func Create(ctx context.Context, cfg *rest.Config, opts CreateOptions) (*CreateResult, error) {
	if err := CheckName(opts.Tenant, opts.Dedicated); err != nil {
		return nil, err
	}
	if err := CheckLabels(opts.Labels); err != nil {
		return nil, err
	}
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkPersonas(ctx, c); err != nil {
		return nil, err
	}
	var dedicated *appsv1.Deployment
	if opts.Dedicated {
		if dedicated, err = dedicatedFromInstalled(ctx, c, opts.Tenant); err != nil {
			return nil, err
		}
	}
	p := progress{opts.Progress}
	res := &CreateResult{}
	var labels map[string]string
	if res.Namespace, labels, err = ensureNamespace(ctx, c, opts, p); err != nil {
		return nil, err
	}
	res.Controller = controllerOf(Namespace{Labels: labels})
	if res.Binding, res.Admins, err = ensureBinding(ctx, c, opts, p); err != nil {
		return nil, err
	}
	if dedicated != nil {
		if res.Deployment, err = ensureDeployment(ctx, c, dedicated, p); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// progress writes a line per object.
type progress struct{ w io.Writer }

func (p progress) note(what string, out Outcome, detail string) {
	if p.w == nil {
		return
	}
	if detail != "" {
		detail = " (" + detail + ")"
	}
	fmt.Fprintf(p.w, "  %s %s%s\n", out, what, detail)
}

// checkPersonas fails when the chart's TenantAdminRole is missing: the
// RoleBinding would bind nothing. A user who may not read ClusterRoles
// is let through (the API server still checks that they may bind it).
func checkPersonas(ctx context.Context, c client.Client) error {
	err := c.Get(ctx, client.ObjectKey{Name: tenancyv1alpha1.TenantAdminRole}, &rbacv1.ClusterRole{})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("ClusterRole %s not found: install AntreaPlus first ('antreaplus install --context CONTEXT'; its chart has the tenancy personas)", tenancyv1alpha1.TenantAdminRole)
	case apierrors.IsForbidden(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading ClusterRole %s: %w", tenancyv1alpha1.TenantAdminRole, err)
	}
	return nil
}

// dedicatedFromInstalled is the tenant's Deployment, from the installed
// cloud controller's.
func dedicatedFromInstalled(ctx context.Context, c client.Client, tenant string) (*appsv1.Deployment, error) {
	installed := &appsv1.Deployment{}
	err := c.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: tenancyv1alpha1.CloudControllerDeployment}, installed)
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("--dedicated-controller copies the cloud controller, and Deployment %s/%s is not installed: install the cloud role first ('antreaplus upgrade --context CONTEXT --role cloud')",
			federationv1alpha1.SystemNamespace, tenancyv1alpha1.CloudControllerDeployment)
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("--dedicated-controller runs a Deployment in %s, which needs a cluster administrator (the persona %s may not): %w", federationv1alpha1.SystemNamespace, tenancyv1alpha1.ClusterAdminRole, err)
	case err != nil:
		return nil, fmt.Errorf("reading Deployment %s/%s: %w", federationv1alpha1.SystemNamespace, tenancyv1alpha1.CloudControllerDeployment, err)
	}
	return DedicatedDeployment(installed, tenant)
}

// ensureNamespace creates the tenant's Namespace or adds the labels it
// lacks, and returns its labels.
func ensureNamespace(ctx context.Context, c client.Client, opts CreateOptions, p progress) (Outcome, map[string]string, error) {
	what := "Namespace " + opts.Tenant
	var out Outcome
	var labels map[string]string
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ns := &corev1.Namespace{}
		err := c.Get(ctx, client.ObjectKey{Name: opts.Tenant}, ns)
		if apierrors.IsNotFound(err) {
			want, changed := NamespaceLabels(nil, opts.Tenant, opts.Dedicated, opts.Labels)
			ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: opts.Tenant, Labels: want}}
			if err := c.Create(ctx, ns); err != nil {
				return fmt.Errorf("creating %s: %w", what, err)
			}
			out, labels = Created, want
			p.note(what, out, "labels "+strings.Join(changed, ", "))
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", what, err)
		}
		if ns.DeletionTimestamp != nil {
			return fmt.Errorf("%s is being deleted: wait until it is gone, then run tenant create again", what)
		}
		want, changed := NamespaceLabels(ns.Labels, opts.Tenant, opts.Dedicated, opts.Labels)
		if len(changed) == 0 {
			out, labels = Unchanged, want
			p.note(what, out, "")
			return nil
		}
		ns.Labels = want
		if err := c.Update(ctx, ns); err != nil {
			return fmt.Errorf("updating %s: %w", what, err)
		}
		out, labels = Configured, want
		p.note(what, out, "labels "+strings.Join(changed, ", "))
		return nil
	})
	return out, labels, err
}

// ensureBinding creates the tenant's RoleBinding or adds the admins it
// lacks, and returns every subject it binds.
func ensureBinding(ctx context.Context, c client.Client, opts CreateOptions, p progress) (Outcome, []string, error) {
	what := fmt.Sprintf("RoleBinding %s/%s", opts.Tenant, tenancyv1alpha1.AdminBinding)
	var out Outcome
	var admins []string
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		b := &rbacv1.RoleBinding{}
		err := c.Get(ctx, client.ObjectKey{Namespace: opts.Tenant, Name: tenancyv1alpha1.AdminBinding}, b)
		if apierrors.IsNotFound(err) {
			subjects, added := AdminSubjects(nil, opts.AdminUsers, opts.AdminGroups)
			b = &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Namespace: opts.Tenant, Name: tenancyv1alpha1.AdminBinding,
					Labels: map[string]string{federationv1alpha1.LabelManagedBy: tenancyv1alpha1.ManagedByTenancy, federationv1alpha1.LabelPartOf: "antreaplus"}},
				RoleRef:  AdminRoleRef(),
				Subjects: subjects,
			}
			if err := c.Create(ctx, b); err != nil {
				return fmt.Errorf("creating %s: %w", what, err)
			}
			out, admins = Created, added
			p.note(what, out, bindingDetail(added))
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", what, err)
		}
		if err := CheckBinding(b); err != nil {
			return err
		}
		subjects, added := AdminSubjects(b.Subjects, opts.AdminUsers, opts.AdminGroups)
		admins = subjectNames(subjects)
		if equality.Semantic.DeepEqual(subjects, b.Subjects) {
			out = Unchanged
			p.note(what, out, "")
			return nil
		}
		b.Subjects = subjects
		if err := c.Update(ctx, b); err != nil {
			return fmt.Errorf("updating %s: %w", what, err)
		}
		out = Configured
		p.note(what, out, "added "+strings.Join(added, ", "))
		return nil
	})
	return out, admins, err
}

func bindingDetail(added []string) string {
	if len(added) == 0 {
		return "no admins yet: run again with --admin-user or --admin-group"
	}
	return "admins " + strings.Join(added, ", ")
}

func subjectNames(subjects []rbacv1.Subject) []string {
	out := make([]string, 0, len(subjects))
	for _, s := range subjects {
		out = append(out, s.Kind+" "+s.Name)
	}
	return out
}

// ensureDeployment creates the dedicated Deployment or brings it to want
// (recreating it when its selector, which cannot change, differs).
func ensureDeployment(ctx context.Context, c client.Client, want *appsv1.Deployment, p progress) (Outcome, error) {
	what := fmt.Sprintf("Deployment %s/%s", want.Namespace, want.Name)
	var out Outcome
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		have := &appsv1.Deployment{}
		err := c.Get(ctx, client.ObjectKeyFromObject(want), have)
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading %s: %w", what, err)
		}
		recreated := false
		if err == nil && !equality.Semantic.DeepEqual(have.Spec.Selector, want.Spec.Selector) {
			// Deleted at once (its ReplicaSets after it, by the garbage
			// collector), then created again.
			if err := c.Delete(ctx, have, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("deleting %s, whose selector changed: %w", what, err)
			}
			recreated, err = true, apierrors.NewNotFound(appsv1.Resource("deployments"), want.Name)
		}
		if apierrors.IsNotFound(err) {
			if err := c.Create(ctx, want.DeepCopy()); err != nil {
				return fmt.Errorf("creating %s: %w", what, err)
			}
			out = Created
			if recreated {
				out = Configured
			}
			p.note(what, out, "instance "+want.Labels[tenancyv1alpha1.LabelInstance])
			return nil
		}
		if DeploymentUpToDate(have, want) {
			out = Unchanged
			p.note(what, out, "")
			return nil
		}
		if have.Labels == nil {
			have.Labels = map[string]string{}
		}
		for k, v := range want.Labels {
			have.Labels[k] = v
		}
		have.Spec = *want.Spec.DeepCopy()
		if err := c.Update(ctx, have); err != nil {
			return fmt.Errorf("updating %s: %w", what, err)
		}
		out = Configured
		p.note(what, out, "as the installed cloud controller")
		return nil
	})
	return out, err
}
