package entityimport

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/entityexport"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// ownStatus writes where each of the led member's exports of Namespace ns
// goes (its Exported condition and status.clusters), decided over the
// federation view as every importer's leader decides it.
func (r *run) ownStatus(ctx context.Context, ns string) error {
	list := &federationv1alpha1.EntityExportList{}
	if err := r.m.Cluster.GetCache().List(ctx, list, client.InNamespace(ns)); err != nil {
		return fmt.Errorf("listing the EntityExports of %s in %s: %w", ns, r.m.ClusterID, err)
	}
	if len(list.Items) == 0 {
		return nil
	}
	members := r.m.Federation.Members()
	scoped, exporter := r.sources.ScopeMembers(members), r.sources.Importer(members)
	var errs []error
	for i := range list.Items {
		exp := &list.Items[i]
		if !exp.DeletionTimestamp.IsZero() {
			continue
		}
		status, changed := entityexport.ReachedStatus(exp, exporter, scoped)
		if !changed {
			continue
		}
		upd := exp.DeepCopy()
		upd.Status = status
		// The update carries the resourceVersion read: it fails, and is
		// retried, if the member controller wrote its status meanwhile.
		errs = append(errs, r.write("EntityExport", "status", nil, func() error {
			if err := r.writer.Status().Update(ctx, upd); !apierrors.IsNotFound(err) {
				return err
			}
			return nil // deleted meanwhile
		}))
	}
	return errors.Join(errs...)
}

// ownExportHandler requeues the status of the led member's exports when one
// is created or its spec (its scope) changes.
func (r *run) ownExportHandler() toolscache.ResourceEventHandler {
	return sources.Handler(func(ev sources.EventType, o, old client.Object) {
		if ev == sources.Added || (ev == sources.Updated && old.GetGeneration() != o.GetGeneration()) {
			r.queue.Add(key{Namespace: o.GetNamespace(), Source: r.m.ClusterID})
		}
	})
}
