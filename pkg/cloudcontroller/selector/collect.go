package selector

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/inventorysync"
)

// collect deletes what the selector name imported in namespace that acct
// does not maintain: everything when acct is nil, else the objects of
// another account or of a region acct does not list.
func (r *Reconciler) collect(ctx context.Context, namespace, name string, acct *cloudv1alpha1.CloudProviderAccount) error {
	all, err := inventorysync.ListImported(ctx, r.Client, namespace, map[string]string{cloudv1alpha1.LabelSelectorName: name})
	if err != nil {
		return err
	}
	stale := func(m *metav1.ObjectMeta, region string) bool {
		return acct == nil || m.Labels[cloudv1alpha1.LabelAccountName] != acct.Name ||
			m.Labels[cloudv1alpha1.LabelAccountNamespace] != acct.Namespace || !slices.Contains(inventorysync.Regions(acct), region)
	}
	var doomed []client.Object
	for i := range all.VirtualMachines {
		if v := &all.VirtualMachines[i]; stale(&v.ObjectMeta, v.Spec.Region) {
			doomed = append(doomed, v)
		}
	}
	for i := range all.NetworkInterfaces {
		if n := &all.NetworkInterfaces[i]; stale(&n.ObjectMeta, n.Spec.Region) {
			doomed = append(doomed, n)
		}
	}
	for i := range all.CloudNativeServices {
		if s := &all.CloudNativeServices[i]; stale(&s.ObjectMeta, s.Spec.Region) {
			doomed = append(doomed, s)
		}
	}
	if len(doomed) == 0 {
		return nil
	}
	log.FromContext(ctx).Info("Removing imported objects nothing maintains", "selector", namespace+"/"+name, "objects", len(doomed))
	if acct == nil {
		return r.deleteAll(ctx, namespace, name, all.VirtualMachines != nil, all.NetworkInterfaces != nil, all.CloudNativeServices != nil)
	}
	var errs []error
	for _, o := range doomed {
		if o.GetDeletionTimestamp() != nil {
			continue
		}
		err := r.Client.Delete(ctx, o, client.Preconditions{UID: ptr.To(o.GetUID())}, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("deleting %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err))
		}
	}
	return errors.Join(errs...)
}

// deleteAll deletes, one call per kind present, everything the selector
// imported in namespace.
func (r *Reconciler) deleteAll(ctx context.Context, namespace, name string, vms, nics, services bool) error {
	opts := []client.DeleteAllOfOption{client.InNamespace(namespace), client.MatchingLabels{cloudv1alpha1.LabelSelectorName: name},
		client.PropagationPolicy(metav1.DeletePropagationBackground)}
	var errs []error
	for _, k := range []struct {
		present bool
		obj     client.Object
	}{{nics, &cloudv1alpha1.NetworkInterface{}}, {vms, &cloudv1alpha1.VirtualMachine{}}, {services, &cloudv1alpha1.CloudNativeService{}}} {
		if !k.present {
			continue
		}
		if err := r.Client.DeleteAllOf(ctx, k.obj, opts...); err != nil {
			errs = append(errs, fmt.Errorf("deleting the %T objects of selector %s/%s: %w", k.obj, namespace, name, err))
		}
	}
	return errors.Join(errs...)
}
