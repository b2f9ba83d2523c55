package inventorysync

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
)

// ListImported lists the objects in namespace carrying every given label
// (e.g. the selector label, or the selector and account labels). From a
// cache, the objects are the cache's own, not copies: callers must not
// change them (copy one before an Update).
func ListImported(ctx context.Context, r client.Reader, namespace string, labels map[string]string) (inventory.Objects, error) {
	var (
		out  inventory.Objects
		vms  cloudv1alpha1.VirtualMachineList
		nics cloudv1alpha1.NetworkInterfaceList
		svcs cloudv1alpha1.CloudNativeServiceList
	)
	// Every poll lists every imported object: copying 20k objects each
	// time would be most of the controller's work and garbage.
	opts := []client.ListOption{client.InNamespace(namespace), client.MatchingLabels(labels), client.UnsafeDisableDeepCopy}
	for _, l := range []client.ObjectList{&vms, &nics, &svcs} {
		if err := r.List(ctx, l, opts...); err != nil {
			return out, fmt.Errorf("listing imported objects in %s: %w", namespace, err)
		}
	}
	out.VirtualMachines, out.NetworkInterfaces, out.CloudNativeServices = vms.Items, nics.Items, svcs.Items
	return out, nil
}

// SelectorLabels are the labels of everything sel imported through acct.
func SelectorLabels(sel *cloudv1alpha1.CloudEntitySelector, acct *cloudv1alpha1.CloudProviderAccount) map[string]string {
	return map[string]string{
		cloudv1alpha1.LabelSelectorName:     sel.Name,
		cloudv1alpha1.LabelAccountName:      acct.Name,
		cloudv1alpha1.LabelAccountNamespace: acct.Namespace,
	}
}

// inRegion keeps the objects of one region.
func inRegion(o inventory.Objects, region string) inventory.Objects {
	return inventory.Objects{
		VirtualMachines:     filter(o.VirtualMachines, func(v *cloudv1alpha1.VirtualMachine) bool { return v.Spec.Region == region }),
		NetworkInterfaces:   filter(o.NetworkInterfaces, func(n *cloudv1alpha1.NetworkInterface) bool { return n.Spec.Region == region }),
		CloudNativeServices: filter(o.CloudNativeServices, func(s *cloudv1alpha1.CloudNativeService) bool { return s.Spec.Region == region }),
	}
}

func filter[T any](items []T, keep func(*T) bool) []T {
	out := items[:0:0]
	for i := range items {
		if keep(&items[i]) {
			out = append(out, items[i])
		}
	}
	return out
}
