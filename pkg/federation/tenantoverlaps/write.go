package tenantoverlaps

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy/overlap"
)

const (
	kindConfigMap = "ConfigMap"
	kindEvent     = "Event"
	// ReasonClaimedInOtherMember is the reason of the Warning Event recorded
	// on a claim Lease when its tenant becomes claimed in another member.
	ReasonClaimedInOtherMember = "TenantClaimedInOtherMember"
	// component is the Events' source.
	component = "antreaplus-federation-manager"
)

// apply makes the stored ConfigMap hold data: created, updated, or
// deleted when data is empty; nothing is written when it already does.
// Updates and deletes are of the very object read (resourceVersion, UID).
func (r *run) apply(ctx context.Context, data map[string]string) error {
	cm := r.stored.cm
	switch {
	case cm == nil && len(data) == 0:
		return nil
	case cm == nil:
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: tenancyv1alpha1.OverlapsConfigMap,
			Labels: map[string]string{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}}, Data: data}
		if err := r.write(kindConfigMap, "create", cm, func() error { return r.writer.Create(ctx, cm) }); err != nil {
			return err
		}
	case len(data) == 0:
		uid, rv := cm.UID, cm.ResourceVersion
		if err := r.write(kindConfigMap, "delete", nil, func() error {
			return client.IgnoreNotFound(r.writer.Delete(ctx, cm, client.Preconditions{UID: &uid, ResourceVersion: &rv}))
		}); err != nil {
			return err
		}
		cm = nil
	case !maps.Equal(cm.Data, data):
		cm = cm.DeepCopy()
		cm.Data = data
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels[federationv1alpha1.LabelManagedBy] = federationv1alpha1.ManagedByFederation
		if err := r.write(kindConfigMap, "update", cm, func() error { return r.writer.Update(ctx, cm) }); err != nil {
			return err
		}
	default:
		return nil
	}
	r.stored = &stored{cm: cm, at: r.now()}
	return nil
}

// report records a Warning Event on the led member's claim Lease of each
// tenant newly claimed elsewhere. The ConfigMap already says it: a failed
// Event is logged, not retried.
func (r *run) report(ctx context.Context, ms members, appeared []overlap.Appearance) {
	for _, a := range appeared {
		l := ms.leases[a.Tenant]
		if l == nil {
			continue
		}
		r.log.Info("Tenant claimed in another member", "tenant", a.Tenant, "holder", ptr.Deref(l.Spec.HolderIdentity, ""), "elsewhere", a.Overlaps)
		ev := claimEvent(l, r.m.ClusterID, r.m.Leader, a, r.now())
		if err := r.write(kindEvent, "create", ev, func() error { return r.writer.Create(ctx, ev) }); err != nil {
			r.log.Error(err, "Recording the event failed", "tenant", a.Tenant)
		}
	}
}

// claimEvent is the Warning Event on claim l of the led member (clusterID)
// saying that a.Overlaps claim its tenant too; leader is this supervisor.
func claimEvent(l *coordinationv1.Lease, clusterID, leader string, a overlap.Appearance, now time.Time) *corev1.Event {
	holder := ptr.Deref(l.Spec.HolderIdentity, "")
	var elsewhere, members []string
	for _, o := range a.Overlaps {
		elsewhere = append(elsewhere, fmt.Sprintf("member %s (holder %s)", o.Member, o.Holder))
		members = append(members, o.Member)
	}
	msg := fmt.Sprintf("Tenant %s, claimed here (member %s, holder %s), is also claimed in %s: the cloud controllers of both members manage it. "+
		"Make the tenant selectors (--tenant-selector) of the cloud controllers in %s and %s disjoint, so that one member manages the tenant.",
		a.Tenant, clusterID, holder, strings.Join(elsewhere, " and "), clusterID, strings.Join(members, ", "))
	t := metav1.NewTime(now)
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: l.Namespace, Name: fmt.Sprintf("%s.%x", l.Name, now.UnixNano())},
		InvolvedObject: corev1.ObjectReference{APIVersion: coordinationv1.SchemeGroupVersion.String(), Kind: "Lease",
			Namespace: l.Namespace, Name: l.Name, UID: l.UID, ResourceVersion: l.ResourceVersion},
		Reason: ReasonClaimedInOtherMember, Message: msg, Type: corev1.EventTypeWarning,
		Source:         corev1.EventSource{Component: component, Host: leader},
		FirstTimestamp: t, LastTimestamp: t, Count: 1,
	}
}

// write makes one write if the election still allows it, stamping the
// leader's term on the object (when given) and counting it.
func (r *run) write(kind, verb string, stamp client.Object, do func() error) error {
	return metrics.CountedWrite(r.m, kind, verb, stamp, do)
}
