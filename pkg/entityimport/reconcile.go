package entityimport

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/entityexport"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// reconcile makes the RemoteEntities of one Namespace imported from one
// source member what that member exports, or keeps them as they are while
// the member cannot be read.
func (r *run) reconcile(ctx context.Context, k key) error {
	if k == withheldKey {
		return r.writeWithheld(ctx)
	}
	if k.Source == r.m.ClusterID {
		return r.ownStatus(ctx, k.Namespace) // nothing of a member is imported into itself
	}
	active, err := r.namespaceActive(ctx, k.Namespace)
	if err != nil || !active {
		return err
	}
	want, keep, err := r.desired(ctx, k)
	if err != nil || keep {
		return err
	}
	have, err := r.imported(ctx, k)
	if err != nil {
		return err
	}
	return r.apply(ctx, k, have, want)
}

// desired is what should be imported for k, or keep when what was imported
// must stay as it is.
func (r *run) desired(ctx context.Context, k key) (want []*federationv1alpha1.RemoteEntity, keep bool, err error) {
	if k.Source == r.m.ClusterID {
		return nil, false, nil // nothing of a member is imported into itself
	}
	mi, found := r.member(k.Source)
	if !found {
		// No session for it here: its session is starting, or it left.
		return nil, r.sources.StillRegistered(ctx, k.Source), nil
	}
	switch r.sources.State(mi) {
	case sources.Withdrawn:
		return nil, false, nil
	case sources.Kept:
		return nil, true, nil
	}
	exports, entities, err := readExports(ctx, mi, k.Namespace)
	if err != nil {
		return nil, false, err
	}
	exports = r.reaching(exports, mi)
	return entityexport.Desired(entityexport.Source{ClusterID: k.Source, Labels: mi.Labels}, exports, entities), false, nil
}

// reaching are the exports of source member mi whose scope reaches the
// led member, when the led member does not refuse mi (package
// exportscope). An export whose scope cannot be read reaches no other
// member: its exporter's member controller reports why.
func (r *run) reaching(exports []federationv1alpha1.EntityExport, mi manager.MemberInfo) []federationv1alpha1.EntityExport {
	importer := r.sources.Importer(r.m.Federation.Members())
	out := exports[:0:0]
	for _, e := range exports {
		if scope, _ := exportscope.FromSpec(e.Spec.Scope); r.sources.Reaches(scope, mi.ClusterID, mi.Labels, importer) {
			out = append(out, e)
		}
	}
	return out
}

// member is the source member as the federation view shows it now.
func (r *run) member(id string) (manager.MemberInfo, bool) {
	for _, mi := range r.m.Federation.Members() {
		if mi.ClusterID == id {
			return mi, true
		}
	}
	return manager.MemberInfo{}, false
}

// readExports reads a member's exports of a Namespace and, when it has
// any, the Namespace's ExternalEntities, from the member's cache.
func readExports(ctx context.Context, mi manager.MemberInfo, ns string) ([]federationv1alpha1.EntityExport, []antreav1alpha2.ExternalEntity, error) {
	c := mi.Cluster.GetCache()
	exports := &federationv1alpha1.EntityExportList{}
	if err := c.List(ctx, exports, client.InNamespace(ns)); err != nil {
		return nil, nil, fmt.Errorf("listing the EntityExports of %s in %s: %w", ns, mi.ClusterID, err)
	}
	if len(exports.Items) == 0 {
		return nil, nil, nil
	}
	entities := &antreav1alpha2.ExternalEntityList{}
	if err := c.List(ctx, entities, client.InNamespace(ns)); err != nil {
		return nil, nil, fmt.Errorf("listing the ExternalEntities of %s in %s: %w", ns, mi.ClusterID, err)
	}
	return exports.Items, entities.Items, nil
}

// imported are the RemoteEntities of k's Namespace in the led member that
// a leader imported from k's source, by name.
func (r *run) imported(ctx context.Context, k key) (map[string]*federationv1alpha1.RemoteEntity, error) {
	list := &federationv1alpha1.RemoteEntityList{}
	err := r.m.OwnCache().List(ctx, list, client.InNamespace(k.Namespace), client.MatchingLabels(entityexport.ImportedLabels(k.Source)))
	if err != nil {
		return nil, fmt.Errorf("listing the RemoteEntities imported from %s in %s: %w", k.Source, k.Namespace, err)
	}
	out := make(map[string]*federationv1alpha1.RemoteEntity, len(list.Items))
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out, nil
}

// namespaceActive tells whether the namespace exists in the led member and
// is not being deleted: entities are imported only there.
func (r *run) namespaceActive(ctx context.Context, ns string) (bool, error) {
	n := &corev1.Namespace{}
	if err := r.m.Cluster.GetCache().Get(ctx, client.ObjectKey{Name: ns}, n); apierrors.IsNotFound(err) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("reading namespace %s: %w", ns, err)
	}
	return n.DeletionTimestamp.IsZero() && n.Status.Phase != corev1.NamespaceTerminating, nil
}
