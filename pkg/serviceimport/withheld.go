package serviceimport

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// withheldKey is the key of the led member's status.withheld.services (no
// Service has an empty name).
var withheldKey = types.NamespacedName{}

// withheldDelay gathers the export events of a burst into one look at
// what is withheld: it reads every member's exports.
const withheldDelay = time.Second

// writeWithheld lists in the led member's ClusterMembership status the
// other members' ServiceExports that do not reach it.
func (r *run) writeWithheld(ctx context.Context) error {
	return r.sources.WriteWithheld(ctx, sources.WithheldServices, readServiceExports, r.writer, func(do func() error) error {
		return r.write("ClusterMembership", "status", nil, do)
	})
}

// readServiceExports are a member's ServiceExports by the federated
// Service each gives: its own name, or the one it joins. One whose joins
// annotation is wrong gives none.
func readServiceExports(ctx context.Context, mi manager.MemberInfo) ([]exportscope.Export, error) {
	list := &mcsv1beta1.ServiceExportList{}
	if err := mi.Cluster.GetCache().List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing the ServiceExports of %s: %w", mi.ClusterID, err)
	}
	out := make([]exportscope.Export, 0, len(list.Items))
	for i := range list.Items {
		e := &list.Items[i]
		target, ok, _ := exportscope.JoinTarget(client.ObjectKeyFromObject(e), e.Annotations)
		if !ok {
			continue
		}
		scope, _ := exportscope.FromAnnotations(e.Annotations) // unreadable: closed, it reaches nobody else
		out = append(out, exportscope.Export{Namespace: target.Namespace, Name: target.Name, Scope: scope})
	}
	return out, nil
}
