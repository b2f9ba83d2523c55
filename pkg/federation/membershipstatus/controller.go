// Package membershipstatus is the leader controller that writes, in every
// member its manager leads, the ClusterMembership status: which supervisor
// leads the member and in which term. Every write is fenced by the election
// and carries the term, so a deposed leader's write is both refused locally
// and visible as a step back in the term.
//
// # Usage
//
// See ExampleNew.
package membershipstatus

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// ErrFenced is returned when the election no longer allows this manager to write.
var ErrFenced = errors.New("no longer the leader: write refused")

// Controller writes the ClusterMembership status of a led member.
type Controller struct {
	resync time.Duration
}

// New returns the controller; it also rewrites the status every resync.
func New(resync time.Duration) *Controller { return &Controller{resync: resync} }

// Name implements manager.LeaderController.
func (c *Controller) Name() string { return "membership-status" }

// Run writes the status now, on every change of the ClusterMembership, and every resync.
func (c *Controller) Run(ctx context.Context, m manager.Member) error {
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	inf, err := m.Cluster.GetCache().GetInformer(ctx, &federationv1alpha1.ClusterMembership{})
	if err == nil {
		reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { poke() },
			UpdateFunc: func(any, any) { poke() },
		})
		if err == nil {
			defer func() { _ = inf.RemoveEventHandler(reg) }()
		}
	}
	t := time.NewTicker(c.resync)
	defer t.Stop()
	poke()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-t.C:
		}
		if err := Reconcile(ctx, m); err != nil && !apierrors.IsConflict(err) && ctx.Err() == nil {
			log.FromContext(ctx).Info("Writing the membership status failed", "member", m.ClusterID, "err", err)
		}
	}
}

// Reconcile makes the member's ClusterMembership status name this leader and term.
func Reconcile(ctx context.Context, m manager.Member) error {
	cm := &federationv1alpha1.ClusterMembership{}
	if err := m.Reader().Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); err != nil {
		return fmt.Errorf("reading the membership of %s: %w", m.ClusterID, err)
	}
	want := cm.Status.DeepCopy()
	want.Leader, want.LeaderTerm = m.Leader, m.Term
	meta.SetStatusCondition(&want.Conditions, metav1.Condition{
		Type: federationv1alpha1.MemberLed, Status: metav1.ConditionTrue, Reason: "LeaseHeld",
		Message: fmt.Sprintf("led by supervisor %s (term %d)", m.Leader, m.Term), ObservedGeneration: cm.Generation,
	})
	if cm.Status.Leader == want.Leader && cm.Status.LeaderTerm == want.LeaderTerm && meta.IsStatusConditionTrue(cm.Status.Conditions, federationv1alpha1.MemberLed) &&
		meta.FindStatusCondition(cm.Status.Conditions, federationv1alpha1.MemberLed).ObservedGeneration == cm.Generation {
		return nil
	}
	term, ok := m.Fence.Check()
	if !ok || term != m.Term {
		fencedWrites.Inc()
		return ErrFenced
	}
	cm.Status = *want
	// The update carries the resourceVersion read above: a write based on a
	// stale read fails with a conflict.
	if err := m.Cluster.GetClient().Status().Update(ctx, cm); err != nil {
		return err
	}
	writes.Inc()
	return nil
}
