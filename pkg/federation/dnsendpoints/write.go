package dnsendpoints

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

const (
	kindDNSEndpoint = "DNSEndpoint"
	kindEvent       = "Event"
	// ReasonInTheWay is the reason of the Warning Event recorded on a
	// DNSEndpoint the federation did not write but needs the name of.
	ReasonInTheWay = "DNSEndpointNotManaged"
	// component is the Events' source.
	component = "antreaplus-federation-manager"
)

// apply makes the DNSEndpoint of k what want says (nil: none), from
// stored (nil: none). A DNSEndpoint someone else wrote is never touched.
// Updates and deletes are of the very object stored (resourceVersion,
// UID): one that changed meanwhile is read again and decided again.
func (r *run) apply(ctx context.Context, k key, stored, want *externaldnsv1alpha1.DNSEndpoint) error {
	if stored != nil && !Ours(stored) {
		if want != nil {
			r.inTheWay(ctx, k, stored)
		}
		return nil
	}
	r.clearInTheWay(k)
	switch {
	case stored == nil && want == nil:
		return nil
	case want == nil:
		uid, rv := stored.UID, stored.ResourceVersion
		err := r.write(kindDNSEndpoint, "delete", nil, func() error {
			return client.IgnoreNotFound(r.writer.Delete(ctx, stored, client.Preconditions{UID: &uid, ResourceVersion: &rv}))
		})
		return r.done(k, nil, err)
	case stored == nil:
		ep := want.DeepCopy()
		return r.done(k, ep, r.write(kindDNSEndpoint, "create", ep, func() error { return r.writer.Create(ctx, ep) }))
	case Same(stored, want):
		return nil
	default:
		ep := Updated(stored, want)
		return r.done(k, ep, r.write(kindDNSEndpoint, "update", ep, func() error { return r.writer.Update(ctx, ep) }))
	}
}

// done stores what a write left (ep, nil for none) or, when it failed,
// forgets k so that it is read again before the retry.
func (r *run) done(k key, ep *externaldnsv1alpha1.DNSEndpoint, err error) error {
	if err != nil {
		r.forget(k)
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stored[k] = ep
	r.countLocked()
	return nil
}

// countLocked sets the gauge of our DNSEndpoints. Must hold r.mu.
func (r *run) countLocked() {
	n := 0
	for _, ep := range r.stored {
		if Ours(ep) {
			n++
		}
	}
	publishedGauge.WithLabelValues(r.m.ClusterID).Set(float64(n))
}

// inTheWay reports, once per object, a DNSEndpoint of k's name that the
// federation did not write: k's records are not published while it is there.
func (r *run) inTheWay(ctx context.Context, k key, other *externaldnsv1alpha1.DNSEndpoint) {
	r.mu.Lock()
	seen := r.warned[k] == string(other.UID)
	r.warned[k] = string(other.UID)
	blocked.WithLabelValues(r.m.ClusterID).Set(float64(len(r.warned)))
	r.mu.Unlock()
	if seen {
		return
	}
	msg := fmt.Sprintf("DNSEndpoint %s/%s was not written by the federation (it lacks the label %s=%s): the records of the federated Service %s are not published. "+
		"Delete or rename it to let the federation publish them; the federation never changes an object it did not write.",
		other.Namespace, other.Name, federationv1alpha1.LabelManagedBy, federationv1alpha1.ManagedByFederation, k)
	r.log.Info("A DNSEndpoint of someone else is in the way", "dnsEndpoint", other.Name, "service", k.String())
	now := metav1.NewTime(time.Now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: other.Namespace, Name: fmt.Sprintf("%s.%x", other.Name, now.UnixNano())},
		InvolvedObject: corev1.ObjectReference{APIVersion: externaldnsv1alpha1.GroupVersion.String(), Kind: kindDNSEndpoint,
			Namespace: other.Namespace, Name: other.Name, UID: other.UID, ResourceVersion: other.ResourceVersion},
		Reason: ReasonInTheWay, Message: msg, Type: corev1.EventTypeWarning,
		Source:         corev1.EventSource{Component: component, Host: r.m.Leader},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if err := r.write(kindEvent, "create", nil, func() error { return r.writer.Create(ctx, ev) }); err != nil {
		r.log.Error(err, "Recording the event failed", "service", k.String())
	}
}

// clearInTheWay forgets that k was blocked.
func (r *run) clearInTheWay(k key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.warned[k]; ok {
		delete(r.warned, k)
		blocked.WithLabelValues(r.m.ClusterID).Set(float64(len(r.warned)))
	}
}

// write makes one write if the election still allows it, stamping the
// leader's term on the object (when given) and counting it.
func (r *run) write(kind, verb string, stamp client.Object, do func() error) error {
	return metrics.CountedWrite(r.m, kind, verb, stamp, do)
}
