package tenantoverlaps

import (
	"context"
	"fmt"
	"maps"
	"slices"

	coordinationv1 "k8s.io/api/coordination/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/sources"
	"antreaplus.io/antreaplus/pkg/tenancy/overlap"
)

// newTracker follows every member, the led one included (its own claims
// are half of every overlap).
func (r *run) newTracker() *sources.Tracker {
	return sources.New(r.m, sources.Options{
		Kinds: []client.Object{&coordinationv1.Lease{}}, Handler: r.claimHandler, ReadLed: true,
		UnreachableHoldDown: r.c.UnreachableHoldDown,
		Registry:            r.c.registry, RegistryNamespace: r.c.registryNamespace,
	}, r.log)
}

// hookLed hooks the claims handler on the led member and waits until its
// Leases are synced.
func (r *run) hookLed(ctx context.Context) error { return r.sources.HookLed(ctx) }

// claimHandler reconciles at once when a claim appears, goes, changes
// holder or is taken again after it expired; a mere renewal changes
// nothing (expiry is noticed at the next resync).
func (r *run) claimHandler(context.Context, string, cluster.Cluster, client.Object) toolscache.ResourceEventHandler {
	return sources.Handler(func(ev sources.EventType, o, old client.Object) {
		c, ok := claimOf(o)
		if !ok {
			return
		}
		if ev == sources.Updated {
			if was, wasClaim := claimOf(old); wasClaim && was.Holder == c.Holder && was.Current(r.now()) == c.Current(r.now()) {
				return
			}
		}
		r.queue.Add(key{})
	})
}

// claimOf is the claim a Lease of federationv1alpha1.SystemNamespace stands for.
func claimOf(o client.Object) (overlap.Claim, bool) {
	l, ok := o.(*coordinationv1.Lease)
	if !ok || l.Namespace != federationv1alpha1.SystemNamespace {
		return overlap.Claim{}, false
	}
	return overlap.FromLease(l)
}

// members is what the run knows of every member now: the claims of those
// that can be read (the led member's Leases by tenant apart, for events),
// and those kept.
type members struct {
	claims map[string][]overlap.Claim
	kept   []string
	// leases are the led member's claim Leases, by tenant.
	leases map[string]*coordinationv1.Lease
}

// readMembers reads the claims of every live member from its cache, and
// judges the others: kept when not synced, or missing from the manager's
// view but still in the registry; withdrawn ones claim nothing. previous
// names the members the ConfigMap speaks of.
func (r *run) readMembers(ctx context.Context, previous map[string][]tenancyv1alpha1.Overlap) (members, error) {
	out := members{claims: map[string][]overlap.Claim{}, leases: map[string]*coordinationv1.Lease{}}
	inView := map[string]bool{}
	for _, mi := range r.m.Federation.Members() {
		inView[mi.ClusterID] = true
		switch r.sources.State(mi) {
		case sources.Kept:
			out.kept = append(out.kept, mi.ClusterID)
			continue
		case sources.Withdrawn:
			continue
		}
		list := &coordinationv1.LeaseList{}
		if err := mi.Cluster.GetCache().List(ctx, list, client.InNamespace(federationv1alpha1.SystemNamespace),
			client.MatchingLabels{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseClaim}); err != nil {
			return out, fmt.Errorf("listing the claims of %s: %w", mi.ClusterID, err)
		}
		claims := []overlap.Claim{}
		for i := range list.Items {
			if c, ok := overlap.FromLease(&list.Items[i]); ok {
				claims = append(claims, c)
				if mi.ClusterID == r.m.ClusterID {
					out.leases[c.Tenant] = &list.Items[i]
				}
			}
		}
		out.claims[mi.ClusterID] = claims
	}
	for _, id := range mentioned(previous) {
		if !inView[id] && id != r.m.ClusterID && r.sources.StillRegistered(ctx, id) {
			out.kept = append(out.kept, id)
		}
	}
	return out, nil
}

// mentioned are the members overlaps name, sorted.
func mentioned(overlaps map[string][]tenancyv1alpha1.Overlap) []string {
	set := map[string]bool{}
	for _, list := range overlaps {
		for _, o := range list {
			set[o.Member] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}
