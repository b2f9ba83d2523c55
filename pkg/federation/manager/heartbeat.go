package manager

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// The heartbeat Lease, read through the manager's cache.
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update,namespace=antreaplus-system

// heartbeat renews this manager's Lease in its own supervisor every renewal
// period (election.Config.Renewal); the other supervisors read it to know
// this manager is alive. On shutdown it is released (an empty holder)
// before the member Leases are.
type heartbeat struct{ m *Manager }

// Start implements manager.Runnable.
func (h heartbeat) Start(ctx context.Context) error {
	t := time.NewTicker(h.m.opts.Election.Renewal())
	defer t.Stop()
	for {
		if err := h.beat(ctx); err != nil {
			log.FromContext(ctx).V(1).Info("Heartbeat failed", "err", err)
		}
		select {
		case <-ctx.Done():
			// Released first: the other supervisors then leave this one
			// out of their plans at once, so that the member Leases
			// released next are taken by whoever ranks first after it,
			// without waiting a rank's retry period for this one.
			if err := h.release(context.WithoutCancel(ctx)); err != nil {
				log.FromContext(ctx).Info("Could not release the heartbeat; the other supervisors see it stop instead", "err", err)
			}
			h.m.stopAll()
			return nil
		case <-t.C:
		}
	}
}

// NeedLeaderElection implements LeaderElectionRunnable: every replica beats.
func (heartbeat) NeedLeaderElection() bool { return false }

func (h heartbeat) beat(ctx context.Context) error {
	now := metav1.NowMicro()
	key := client.ObjectKey{Namespace: h.m.opts.Namespace, Name: federationv1alpha1.ManagerLease}
	l := &coordinationv1.Lease{}
	err := h.m.local.Get(ctx, key, l)
	if apierrors.IsNotFound(err) {
		l = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace,
				Labels: map[string]string{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(h.m.me), RenewTime: &now, AcquireTime: &now,
				LeaseDurationSeconds: ptr.To(int32(h.m.opts.Election.LeaseDuration / time.Second))},
		}
		return h.m.local.Create(ctx, l)
	}
	if err != nil {
		return err
	}
	l.Spec.HolderIdentity, l.Spec.RenewTime = ptr.To(h.m.me), &now
	return h.m.local.Update(ctx, l)
}

// releaseTimeout bounds the heartbeat's release on shutdown.
const releaseTimeout = 2 * time.Second

// release empties the heartbeat's holder: this manager is shutting down.
func (h heartbeat) release(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	l := &coordinationv1.Lease{}
	if err := h.m.local.Get(ctx, client.ObjectKey{Namespace: h.m.opts.Namespace, Name: federationv1alpha1.ManagerLease}, l); err != nil {
		return client.IgnoreNotFound(err)
	}
	l.Spec.HolderIdentity = ptr.To("")
	return h.m.local.Update(ctx, l)
}
