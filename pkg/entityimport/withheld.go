package entityimport

import (
	"context"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// withheldKey is the key of the led member's status.withheld.entities (no
// Namespace has an empty name).
var withheldKey = key{}

// withheldDelay gathers the export events of a burst into one look at
// what is withheld: it reads every member's exports.
const withheldDelay = time.Second

// writeWithheld lists in the led member's ClusterMembership status the
// other members' EntityExports that do not reach it.
func (r *run) writeWithheld(ctx context.Context) error {
	return r.sources.WriteWithheld(ctx, sources.WithheldEntities, readEntityExports, r.writer, func(do func() error) error {
		return r.write("ClusterMembership", "status", nil, do)
	})
}

// readEntityExports are a member's EntityExports as scopes see them.
func readEntityExports(ctx context.Context, mi manager.MemberInfo) ([]exportscope.Export, error) {
	list := &federationv1alpha1.EntityExportList{}
	if err := mi.Cluster.GetCache().List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing the EntityExports of %s: %w", mi.ClusterID, err)
	}
	out := make([]exportscope.Export, 0, len(list.Items))
	for i := range list.Items {
		e := &list.Items[i]
		scope, _ := exportscope.FromSpec(e.Spec.Scope) // unreadable: closed, it reaches nobody else
		out = append(out, exportscope.Export{Namespace: e.Namespace, Name: e.Name, Scope: scope})
	}
	return out, nil
}
