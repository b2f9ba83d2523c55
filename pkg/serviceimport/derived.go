package serviceimport

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// applyDerivedService writes the derived Service of a ClusterSetIP import
// and returns what the member allocated it: its cluster IPs, or why the
// member refused the IP families the exporters serve.
func (r *run) applyDerivedService(ctx context.Context, k types.NamespacedName, result serviceexport.Result) (serviceexport.ClusterSetIP, error) {
	want := serviceexport.DerivedService(k.Namespace, k.Name, result)
	have := &corev1.Service{}
	err := r.m.OwnCache().Get(ctx, client.ObjectKeyFromObject(want), have)
	switch {
	case apierrors.IsNotFound(err):
		return r.createDerived(ctx, want)
	case err != nil:
		return serviceexport.ClusterSetIP{}, fmt.Errorf("reading the derived Service %s: %w", want.Name, err)
	case !ours(have):
		r.log.Info("The derived Service's name is taken by a Service the federation does not manage: the import gets no cluster-set IP",
			"service", client.ObjectKeyFromObject(want))
		return serviceexport.ClusterSetIP{}, nil
	case serviceexport.ServiceMatches(have, want):
		return serviceexport.ClusterSetIP{IPs: have.Spec.ClusterIPs}, nil
	}
	upd, recreate := serviceexport.UpdatedService(have, want)
	if recreate {
		// The exporters' only family changed: the member gives a new IP.
		r.log.Info("The exporters' IP family changed: the derived Service is recreated with a new cluster-set IP",
			"service", client.ObjectKeyFromObject(want), "families", result.IPFamilies)
		if err := r.delete(ctx, have); err != nil {
			return serviceexport.ClusterSetIP{}, err
		}
		return r.createDerived(ctx, want)
	}
	err = r.write("Service", "update", upd, func() error { return r.writer.Update(ctx, upd) })
	if refused := familiesRefused(err); refused != "" {
		return serviceexport.ClusterSetIP{IPs: have.Spec.ClusterIPs, Refused: refused}, nil
	}
	if err != nil {
		return serviceexport.ClusterSetIP{}, err
	}
	return serviceexport.ClusterSetIP{IPs: upd.Spec.ClusterIPs}, nil
}

// createDerived creates a derived Service. A member without a Service
// range of the families asked for refuses it: that is the import's
// condition, not an error (it is tried again at every reconcile).
func (r *run) createDerived(ctx context.Context, want *corev1.Service) (serviceexport.ClusterSetIP, error) {
	err := r.write("Service", "create", want, func() error { return r.writer.Create(ctx, want) })
	if refused := familiesRefused(err); refused != "" {
		r.log.V(1).Info("The member refused the derived Service's IP families", "service", client.ObjectKeyFromObject(want), "reason", refused)
		return serviceexport.ClusterSetIP{Refused: refused}, nil
	}
	if apierrors.IsAlreadyExists(err) && r.takenByAnother(ctx, want) {
		return serviceexport.ClusterSetIP{}, nil
	}
	if err != nil {
		return serviceexport.ClusterSetIP{}, err
	}
	return serviceexport.ClusterSetIP{IPs: want.Spec.ClusterIPs}, nil
}

// takenByAnother tells (and logs) whether the derived Service's name is a
// Service the federation does not manage: the cache of the federation's
// own objects does not hold it, the member's cache does.
func (r *run) takenByAnother(ctx context.Context, want *corev1.Service) bool {
	other := &corev1.Service{}
	if err := r.m.Cluster.GetCache().Get(ctx, client.ObjectKeyFromObject(want), other); err != nil || ours(other) {
		return false
	}
	r.log.Info("The derived Service's name is taken by a Service the federation does not manage: the import gets no cluster-set IP",
		"service", client.ObjectKeyFromObject(want))
	return true
}

// familiesRefused is the API server's reason when err refuses a Service's
// IP families or family policy; "" for any other error or none.
func familiesRefused(err error) string {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return ""
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		if strings.HasPrefix(c.Field, "spec.ipFamil") {
			out = append(out, c.Field+": "+c.Message)
		}
	}
	return strings.Join(out, "; ")
}
