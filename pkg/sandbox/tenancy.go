package sandbox

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

// cloudControllerProcess is the process of a cloud controller of cluster:
// the member's cloud controller, or one of the tenancy processes
// (PlanTenancy), named by c.Process.
func (s *Sandbox) cloudControllerProcess(cluster string, c TenancyController) process {
	p := s.cloudController(cluster)
	if c.Process != "" && c.Process != p.name {
		p.name, p.what = c.Process, fmt.Sprintf("the cloud controller %s of %s", c.Holder(), cluster)
	}
	return p
}

// ensureTenantNamespaces creates the tenants' Namespaces, or gives them
// their labels back, before their accounts appear: a hard tenant must
// never be selected by the shared instance, even for a moment.
func (s *Sandbox) ensureTenantNamespaces(ctx context.Context, cluster string, tenants []TenantPlan) error {
	_, cs, err := s.clientset(cluster)
	if err != nil {
		return err
	}
	for _, t := range tenants {
		ns, err := cs.CoreV1().Namespaces().Get(ctx, t.Namespace, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: t.Namespace, Labels: maps.Clone(t.Labels)}}
			if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating the tenant %s in %s: %w", t.Namespace, cluster, err)
			}
			continue
		case err != nil:
			return fmt.Errorf("reading the tenant %s in %s: %w", t.Namespace, cluster, err)
		}
		want := maps.Clone(ns.Labels)
		if want == nil {
			want = map[string]string{}
		}
		maps.Copy(want, t.Labels)
		if !maps.Equal(want, ns.Labels) {
			ns.Labels = want
			if _, err := cs.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("labelling the tenant %s in %s: %w", t.Namespace, cluster, err)
			}
		}
	}
	return nil
}

// waitTenancyReplicas waits until every controller has a current
// heartbeat Lease in the controllers' namespace.
func (s *Sandbox) waitTenancyReplicas(ctx context.Context, cluster string, controllers []TenancyController, timeout time.Duration) error {
	_, cs, err := s.clientset(cluster)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		var missing []string
		leases, err := cs.CoordinationV1().Leases(federationv1alpha1.SystemNamespace).List(ctx, metav1.ListOptions{LabelSelector: tenancyv1alpha1.LabelLease + "=" + tenancyv1alpha1.LeaseReplica})
		if err == nil {
			live := map[string]bool{}
			for _, l := range leases.Items {
				renew, d := l.Spec.RenewTime, time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0))*time.Second
				if renew != nil && time.Since(renew.Time) < d {
					live[ptr.Deref(l.Spec.HolderIdentity, "")] = true
				}
			}
			for _, c := range controllers {
				if !live[c.Holder()] {
					missing = append(missing, c.Holder())
				}
			}
			if len(missing) == 0 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("no heartbeat of %s", strings.Join(missing, ", "))
			}
			var logs []string
			for _, c := range controllers {
				if slices.Contains(missing, c.Holder()) {
					logs = append(logs, s.cloudControllerProcess(cluster, c).logFile())
				}
			}
			return fmt.Errorf("the cloud controllers of %s did not announce themselves in %s (%w): see %s", cluster, timeout, err, strings.Join(logs, ", "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
