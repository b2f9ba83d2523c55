package inventorysync

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// The cloud controller writes the Networks of the VPCs and VNets it
// imports from (docs/networks.md): their ranges and the peerings the cloud
// shows. The operator's flat connections in the same object are theirs
// (server-side apply: each owns its entries).
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=networks,verbs=get;list;watch;create;patch

// fieldOwner is the field manager of the cloud controller's applies.
const fieldOwner = "antreaplus-cloud-controller"

// discovered are the ways of a flat connection the cloud shows: the
// controller's own entries of a Network's flat list.
var discovered = []federationv1alpha1.ConnectionVia{federationv1alpha1.ViaVPCPeering, federationv1alpha1.ViaTransitGateway, federationv1alpha1.ViaVNetPeering}

// syncNetworks applies the Networks of the VPCs that objects were imported
// from in snap, when the stored one differs. A Network of the same name
// that the cloud controller did not write is left alone.
func (r *Reconciler) syncNetworks(ctx context.Context, snap *provider.Snapshot, objects inventory.Objects) (int, error) {
	writes := 0
	for _, want := range inventory.Networks([]*provider.Snapshot{snap}, objects) {
		have := &federationv1alpha1.Network{}
		err := r.Client.Get(ctx, client.ObjectKey{Name: want.Name}, have)
		switch {
		case err == nil && have.Labels[federationv1alpha1.LabelManagedBy] != inventory.ManagedByNetworks:
			log.FromContext(ctx).Info("Network exists and was not written by the cloud controller: left alone", "network", want.Name)
			continue
		case err == nil && networkUpToDate(have, &want):
			continue
		case err != nil && !apierrors.IsNotFound(err):
			return writes, fmt.Errorf("reading Network %s: %w", want.Name, err)
		}
		apply := want.DeepCopy()
		apply.SetGroupVersionKind(federationv1alpha1.GroupVersion.WithKind("Network"))
		if err := r.Client.Patch(ctx, apply, client.Apply, client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			return writes, fmt.Errorf("applying Network %s: %w", want.Name, err)
		}
		writes++
	}
	return writes, nil
}

// networkUpToDate reports whether the stored Network holds what the cloud
// shows: its kind, ranges and VPC, and exactly the discovered flat
// connections (the operator's are not compared).
func networkUpToDate(have, want *federationv1alpha1.Network) bool {
	if have.Spec.Kind != want.Spec.Kind || !slices.Equal(have.Spec.CIDRs, want.Spec.CIDRs) || !equality.Semantic.DeepEqual(have.Spec.Cloud, want.Spec.Cloud) {
		return false
	}
	var flat []federationv1alpha1.FlatConnection
	for _, f := range have.Spec.Flat {
		if slices.Contains(discovered, f.Via) {
			flat = append(flat, f)
		}
	}
	return equality.Semantic.DeepEqual(flat, want.Spec.Flat) || (len(flat) == 0 && len(want.Spec.Flat) == 0)
}
