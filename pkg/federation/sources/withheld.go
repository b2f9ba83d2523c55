package sources

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// WithheldKind is the kind of export a leader controller imports, and so
// the list of the led member's status.withheld it writes.
type WithheldKind int

// The kinds of withheld exports.
const (
	WithheldServices WithheldKind = iota
	WithheldEntities
)

// ExportsOf reads one readable member's exports of the caller's kind, as
// scopes see them (Exporter is set by the caller's tracker).
type ExportsOf func(ctx context.Context, mi manager.MemberInfo) ([]exportscope.Export, error)

// WriteWithheld makes the led member's status.withheld list of kind say
// which exports of the other members do not reach it, and why (package
// exportscope): read from every member whose exports can be read now;
// kept as listed for a member that cannot be read (Kept); none of a member
// withdrawn. write makes the status update (fenced and counted by the
// caller); nothing is written when the list is already right.
func (t *Tracker) WriteWithheld(ctx context.Context, kind WithheldKind, read ExportsOf, writer client.StatusClient,
	write func(do func() error) error) error {
	cm := &federationv1alpha1.ClusterMembership{}
	if err := t.m.Cluster.GetCache().Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return fmt.Errorf("reading the ClusterMembership of %s: %w", t.m.ClusterID, err)
	}
	var old []federationv1alpha1.WithheldExport
	if w := cm.Status.Withheld; w != nil {
		old = w.Services
		if kind == WithheldEntities {
			old = w.Entities
		}
	}
	members := t.m.Federation.Members()
	importer := t.Importer(members)
	var exports []exportscope.Export
	var kept []federationv1alpha1.WithheldExport
	for _, mi := range members {
		if mi.ClusterID == t.m.ClusterID {
			continue // a member's own exports always reach it
		}
		switch t.State(mi) {
		case Withdrawn:
		case Kept:
			for _, w := range old {
				if w.Cluster == mi.ClusterID {
					kept = append(kept, w)
				}
			}
		case Live:
			list, err := read(ctx, mi)
			if err != nil {
				return err
			}
			exporter := t.ScopeMember(mi.ClusterID, mi.Labels)
			for i := range list {
				list[i].Exporter = exporter
			}
			exports = append(exports, list...)
		}
	}
	list, more := exportscope.Withheld(exports, importer)
	list, more = exportscope.MergeWithheld(list, more, kept)
	want := cm.Status.DeepCopy()
	if want.Withheld == nil {
		want.Withheld = &federationv1alpha1.WithheldExports{}
	}
	if kind == WithheldEntities {
		want.Withheld.Entities, want.Withheld.MoreEntities = list, more
	} else {
		want.Withheld.Services, want.Withheld.MoreServices = list, more
	}
	if equality.Semantic.DeepEqual(*want.Withheld, federationv1alpha1.WithheldExports{}) {
		want.Withheld = nil
	}
	if equality.Semantic.DeepEqual(cm.Status.Withheld, want.Withheld) {
		return nil
	}
	upd := cm.DeepCopy()
	upd.Status = *want
	// The update carries the resourceVersion read: it fails, and is
	// retried, if another writer of the status wrote meanwhile.
	return write(func() error { return writer.Status().Update(ctx, upd) })
}
