package install

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Selectors of the release's objects.
const (
	// ownedSelector selects what the release applied and still owns: an
	// upgrade prunes what of it the new rendering lacks.
	ownedSelector = InstanceLabel + "=" + ReleaseName + "," + ManagedByLabel + "=" + ManagedBy
	// releaseSelector also selects the federation account's objects that
	// 'antreaplus federation join' wrote over since (it labels them
	// managed-by antreaplus-federation): an uninstall deletes them too, an
	// upgrade leaves them to the federation.
	releaseSelector = InstanceLabel + "=" + ReleaseName + "," + ManagedByLabel + " in (" + ManagedBy + "," + federationv1alpha1.ManagedByFederation + ")"
)

// objectKey names an object whatever its version.
type objectKey struct {
	group, kind, namespace, name string
}

func keyOf(o *unstructured.Unstructured) objectKey {
	gvk := o.GroupVersionKind()
	return objectKey{gvk.Group, gvk.Kind, o.GetNamespace(), o.GetName()}
}

// stale returns the objects of live that keep (and the release record)
// lack: what an upgrade prunes.
func stale(live []unstructured.Unstructured, keep []*unstructured.Unstructured) []*unstructured.Unstructured {
	want := map[objectKey]bool{keyOf(releaseObject()): true}
	for _, o := range keep {
		want[keyOf(o)] = true
	}
	var out []*unstructured.Unstructured
	for i := range live {
		if !want[keyOf(&live[i])] {
			out = append(out, &live[i])
		}
	}
	return out
}

// prune deletes the objects of kinds that the release owns and r lacks
// (those of a role dropped by an upgrade, of a value turned off).
func (c *cluster) prune(ctx context.Context, kinds []schema.GroupVersionKind, r *Rendering, p *progress) error {
	for _, gvk := range kinds {
		live, err := c.list(ctx, gvk, ownedSelector)
		if err != nil {
			return err
		}
		for _, o := range stale(live, r.Objects) {
			removed, err := c.remove(ctx, o)
			if err != nil {
				return err
			}
			if removed {
				p.pruned++
				p.note("pruned", o)
			}
		}
	}
	return nil
}
