package entityimport

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/entityexport"
)

const kindRemoteEntity = "RemoteEntity"

// apply creates or updates the desired RemoteEntities that differ, and
// deletes those imported for k that are no longer desired.
func (r *run) apply(ctx context.Context, k key, have map[string]*federationv1alpha1.RemoteEntity, want []*federationv1alpha1.RemoteEntity) error {
	for _, w := range want {
		h, ok := have[w.Name]
		delete(have, w.Name)
		var err error
		switch {
		case !ok:
			err = r.create(ctx, w)
		case !entityexport.Matches(h, w):
			upd := h.DeepCopy()
			upd.Labels, upd.Spec = w.Labels, w.Spec
			err = r.write(kindRemoteEntity, "update", upd, func() error { return r.writer.Update(ctx, upd) })
		}
		if err != nil {
			return err
		}
	}
	gone := make([]string, 0, len(have))
	for name := range have {
		gone = append(gone, name)
	}
	sort.Strings(gone)
	for _, name := range gone {
		if err := r.delete(ctx, have[name]); err != nil {
			return err
		}
	}
	return nil
}

// create writes a new RemoteEntity, unless an object the leader did not
// import from the same source holds the name: that one is left alone.
func (r *run) create(ctx context.Context, want *federationv1alpha1.RemoteEntity) error {
	taken := &federationv1alpha1.RemoteEntity{}
	err := r.m.OwnCache().Get(ctx, client.ObjectKeyFromObject(want), taken)
	switch {
	case apierrors.IsNotFound(err):
		return r.write(kindRemoteEntity, "create", want, func() error { return r.writer.Create(ctx, want) })
	case err != nil:
		return fmt.Errorf("reading the RemoteEntity %s/%s: %w", want.Namespace, want.Name, err)
	}
	r.log.Info("The RemoteEntity's name is taken by one the federation did not import from this source: the entity is not imported",
		"remoteEntity", client.ObjectKeyFromObject(want), "source", want.Spec.SourceCluster,
		"takenBy", taken.Labels[federationv1alpha1.LabelSourceCluster], "managed", ours(taken))
	return nil
}

// delete deletes a RemoteEntity, only the very one read (UID precondition).
func (r *run) delete(ctx context.Context, obj *federationv1alpha1.RemoteEntity) error {
	uid := obj.GetUID()
	return r.write(kindRemoteEntity, "delete", nil, func() error {
		err := r.writer.Delete(ctx, obj, client.Preconditions{UID: &uid})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}

// write makes one write if the election still allows it, stamping the
// leader's term on the object (when given) and counting it.
func (r *run) write(kind, verb string, stamp client.Object, do func() error) error {
	return metrics.CountedWrite(r.m, kind, verb, stamp, do)
}
