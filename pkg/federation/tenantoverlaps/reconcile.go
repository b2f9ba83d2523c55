package tenantoverlaps

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy/overlap"
)

// reconcile makes the led member's ConfigMap say what overlap.Decide
// decides from the members' claims, writing only when that differs from
// what it holds, and reports the tenants newly claimed elsewhere.
func (r *run) reconcile(ctx context.Context, _ key) error {
	now := r.now()
	fresh := false
	if r.stored == nil || now.Sub(r.stored.at) >= r.c.Reread {
		if err := r.read(ctx); err != nil {
			return err
		}
		fresh = true
	}
	want, ms, previous, err := r.decide(ctx)
	if err != nil {
		return err
	}
	if !fresh && !maps.Equal(overlap.Encode(want), r.stored.data()) {
		// About to write: decide again from what is stored now.
		if err := r.read(ctx); err != nil {
			return err
		}
		if want, ms, previous, err = r.decide(ctx); err != nil {
			return err
		}
	}
	if err := r.apply(ctx, overlap.Encode(want)); err != nil {
		r.stored = nil // read it again before the retry
		return err
	}
	overlapsGauge.WithLabelValues(r.m.ClusterID).Set(float64(len(r.stored.data())))
	r.report(ctx, ms, overlap.Appeared(previous, want))
	// Next: when a claim expires unrenewed, or when the ConfigMap is due to
	// be read again (someone may have changed it: nothing watches it).
	next := r.c.Reread
	if at, ok := nextExpiry(ms.claims, now); ok && at.Sub(now) < next {
		next = at.Sub(now)
	}
	r.queue.AddAfter(key{}, next)
	return nil
}

// nextExpiry is when the first claim current at now expires unless it is
// renewed; false when none is current.
func nextExpiry(claims map[string][]overlap.Claim, now time.Time) (time.Time, bool) {
	var first time.Time
	for _, list := range claims {
		for _, c := range list {
			if !c.Current(now) {
				continue
			}
			if end := c.Renew.Add(c.Duration); first.IsZero() || end.Before(first) {
				first = end
			}
		}
	}
	// A moment after, so that the claim has expired when it is read.
	return first.Add(10 * time.Millisecond), !first.IsZero()
}

// decide reads the members and decides the overlaps against the stored
// ConfigMap, which it also returns decoded.
func (r *run) decide(ctx context.Context) (want map[string][]tenancyv1alpha1.Overlap, ms members, previous map[string][]tenancyv1alpha1.Overlap, err error) {
	previous, decodeErr := overlap.Decode(r.stored.data())
	if decodeErr != nil {
		r.log.V(1).Info("Unreadable entries in the overlaps ConfigMap: rewritten", "err", decodeErr)
	}
	if ms, err = r.readMembers(ctx, previous); err != nil {
		return nil, ms, nil, err
	}
	want = overlap.Decide(overlap.Input{Member: r.m.ClusterID, Claims: ms.claims, Kept: ms.kept, Previous: previous, Now: r.now()})
	return want, ms, previous, nil
}

// read gets the led member's ConfigMap from the API server.
func (r *run) read(ctx context.Context) error {
	cm := &corev1.ConfigMap{}
	err := r.m.Reader().Get(ctx, configMapKey(), cm)
	switch {
	case apierrors.IsNotFound(err):
		cm = nil
	case err != nil:
		return fmt.Errorf("reading the ConfigMap %s in %s: %w", configMapKey(), r.m.ClusterID, err)
	}
	r.stored = &stored{cm: cm, at: r.now()}
	return nil
}

func configMapKey() client.ObjectKey {
	return client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: tenancyv1alpha1.OverlapsConfigMap}
}
