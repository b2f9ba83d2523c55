package manager

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/log"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// The federation's own objects in a member (the derived Services and the
// imported EndpointSlices its leader writes, one of each per import) are
// read only by that member's leader: every other member's leader reads a
// member's Services and EndpointSlices as sources, and the federation's
// own are not. Held in the member's cache, every supervisor kept every
// import of every member (at 30 members importing 200 Services, 12,000
// objects against 400 sources), and every import written anywhere was an
// event in every supervisor. So a member's cache leaves them out, and the
// member's leader reads them through a cache of their own (Member.Own),
// which runs while it leads. The member's ServiceImports and
// RemoteEntities are there too: in the member's cache, they stayed in
// every supervisor that had ever led the member.

// ownKind is a kind of the federation's own objects and the label that
// marks them; a kind without a label is one only the member's leader reads
// (ServiceImports): the member's cache never watches it, the own cache
// holds all of it (ServiceImports, RemoteEntities).
type ownKind struct {
	obj        func() client.Object
	key, value string
}

var ownKinds = []ownKind{
	{func() client.Object { return &corev1.Service{} }, federationv1alpha1.LabelManagedBy, federationv1alpha1.ManagedByFederation},
	{func() client.Object { return &discoveryv1.EndpointSlice{} }, discoveryv1.LabelManagedBy, federationv1alpha1.EndpointSliceManagedBy},
	{obj: func() client.Object { return &mcsv1beta1.ServiceImport{} }},
	{obj: func() client.Object { return &federationv1alpha1.RemoteEntity{} }},
}

func (k ownKind) selector(op selection.Operator) labels.Selector {
	r, err := labels.NewRequirement(k.key, op, []string{k.value})
	if err != nil {
		panic(fmt.Sprintf("the label %s=%s: %v", k.key, k.value, err)) // constants: cannot fail
	}
	return labels.NewSelector().Add(*r)
}

// notOwnByObject adds to byObject what a member's cache holds of the kinds
// of ownKinds: everything but the federation's own.
func notOwnByObject(byObject map[client.Object]cache.ByObject) {
	for _, k := range ownKinds {
		if k.key != "" {
			byObject[k.obj()] = cache.ByObject{Label: k.selector(selection.NotEquals)}
		}
	}
}

// NewOwnCache connects a cache of the federation's own objects in the
// member (Member.Own), over the member cache's connection, client and
// mapping. It holds only the kinds of ownKinds, and only the objects their
// label marks; it answers nothing else (ReaderFailOnMissingInformer). The
// caller starts it.
func NewOwnCache(ctx context.Context, member cluster.Cluster) (cache.Cache, error) {
	byObject := map[client.Object]cache.ByObject{}
	for _, k := range ownKinds {
		var sel labels.Selector // (nil: every object of the kind)
		if k.key != "" {
			sel = k.selector(selection.Equals)
		}
		byObject[k.obj()] = cache.ByObject{Label: sel}
	}
	c, err := cache.New(member.GetConfig(), cache.Options{
		HTTPClient: member.GetHTTPClient(), Scheme: member.GetScheme(), Mapper: member.GetRESTMapper(),
		ByObject: byObject, DefaultTransform: cache.TransformStripManagedFields(), ReaderFailOnMissingInformer: true,
	})
	if err != nil {
		return nil, fmt.Errorf("the cache of the federation's own objects: %w", err)
	}
	for _, k := range ownKinds {
		if _, err := c.GetInformer(ctx, k.obj(), cache.BlockUntilSynced(false)); err != nil {
			return nil, fmt.Errorf("the cache of the federation's own %T: %w", k.obj(), err)
		}
	}
	return c, nil
}

// runOwnCache builds and starts the cache of the federation's own objects
// in member, tried again each second until it is built or ctx ends (it
// fails only on options it cannot use: a bug, logged); nil once ctx ends.
func runOwnCache(ctx context.Context, member cluster.Cluster) cache.Cache {
	for {
		own, err := NewOwnCache(ctx, member)
		if err == nil {
			go func() {
				if err := own.Start(ctx); err != nil {
					log.FromContext(ctx).Error(err, "The cache of the federation's own objects in the member stopped")
				}
			}()
			return own
		}
		log.FromContext(ctx).Error(err, "Cannot build the cache of the federation's own objects in the member; trying again")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}
