package inventorysync

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
)

// applier writes one plan.
type applier struct {
	c       client.Client
	sel     *cloudv1alpha1.CloudEntitySelector
	workers int

	mu     sync.Mutex
	vmUIDs map[string]types.UID // VMs created by this plan
	writes int
}

// apply writes plan: VMs, then interfaces (owned by their VM), services,
// updates, and deletes. It returns the writes sent and every error but
// AlreadyExists on create and NotFound on update or delete, which a later
// poll settles.
func apply(ctx context.Context, c client.Client, sel *cloudv1alpha1.CloudEntitySelector, plan inventory.Plan, workers int) (int, error) {
	a := &applier{c: c, sel: sel, workers: workers, vmUIDs: map[string]types.UID{}}
	var errs []error
	errs = append(errs, run(ctx, a, plan.Create.VirtualMachines, a.createVM))
	errs = append(errs, run(ctx, a, plan.Create.NetworkInterfaces, a.createNIC))
	errs = append(errs, run(ctx, a, plan.Create.CloudNativeServices, func(ctx context.Context, s *cloudv1alpha1.CloudNativeService) error {
		s.OwnerReferences = append(s.OwnerReferences, a.selectorOwner())
		return a.create(ctx, s)
	}))
	errs = append(errs, run(ctx, a, plan.Update.VirtualMachines, func(ctx context.Context, v *cloudv1alpha1.VirtualMachine) error { return a.update(ctx, v) }))
	errs = append(errs, run(ctx, a, plan.Update.NetworkInterfaces, func(ctx context.Context, n *cloudv1alpha1.NetworkInterface) error {
		a.ownNIC(n)
		return a.update(ctx, n)
	}))
	errs = append(errs, run(ctx, a, plan.Update.CloudNativeServices, func(ctx context.Context, s *cloudv1alpha1.CloudNativeService) error { return a.update(ctx, s) }))
	errs = append(errs, run(ctx, a, plan.Delete.NetworkInterfaces, func(ctx context.Context, n *cloudv1alpha1.NetworkInterface) error { return a.delete(ctx, n) }))
	errs = append(errs, run(ctx, a, plan.Delete.VirtualMachines, func(ctx context.Context, v *cloudv1alpha1.VirtualMachine) error { return a.delete(ctx, v) }))
	errs = append(errs, run(ctx, a, plan.Delete.CloudNativeServices, func(ctx context.Context, s *cloudv1alpha1.CloudNativeService) error { return a.delete(ctx, s) }))
	return a.writes, errors.Join(errs...)
}

func (a *applier) createVM(ctx context.Context, v *cloudv1alpha1.VirtualMachine) error {
	v.OwnerReferences = append(v.OwnerReferences, a.selectorOwner())
	err := a.create(ctx, v)
	if err == nil && v.UID != "" {
		a.mu.Lock()
		a.vmUIDs[v.Name] = v.UID
		a.mu.Unlock()
	}
	return err
}

func (a *applier) createNIC(ctx context.Context, n *cloudv1alpha1.NetworkInterface) error {
	if !a.ownNIC(n) {
		// Its VM could not be created (or is not in the cache yet): the
		// next poll creates the interface with its owner.
		return nil
	}
	return a.create(ctx, n)
}

// ownNIC makes a NIC whose VM this plan created owned by it, and reports
// whether the NIC has its owner.
func (a *applier) ownNIC(n *cloudv1alpha1.NetworkInterface) bool {
	if len(n.OwnerReferences) > 0 {
		return true
	}
	a.mu.Lock()
	uid, ok := a.vmUIDs[n.Spec.VirtualMachine]
	a.mu.Unlock()
	if !ok {
		return false
	}
	n.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: cloudv1alpha1.GroupVersion.String(), Kind: "VirtualMachine", Name: n.Spec.VirtualMachine, UID: uid,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}}
	return true
}

// selectorOwner makes the selector own what it imported, so that deleting
// it deletes them.
func (a *applier) selectorOwner() metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: cloudv1alpha1.GroupVersion.String(), Kind: "CloudEntitySelector", Name: a.sel.Name, UID: a.sel.UID,
		Controller: ptr.To(true),
	}
}

func (a *applier) create(ctx context.Context, o client.Object) error {
	a.count()
	if err := a.c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

func (a *applier) update(ctx context.Context, o client.Object) error {
	a.count()
	// The plan's updates share parts with the cache's objects, which the
	// answer must not be decoded into.
	o = o.DeepCopyObject().(client.Object)
	if err := a.c.Update(ctx, o); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("updating %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

func (a *applier) delete(ctx context.Context, o client.Object) error {
	a.count()
	err := a.c.Delete(ctx, o, client.Preconditions{UID: ptr.To(o.GetUID())}, client.PropagationPolicy(metav1.DeletePropagationBackground))
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

func (a *applier) count() {
	a.mu.Lock()
	a.writes++
	a.mu.Unlock()
}

// maxErrors is how many errors of one step are reported.
const maxErrors = 5

// run calls fn on every item, a.workers at a time, and returns the first
// few errors with the count of the others.
func run[T any](ctx context.Context, a *applier, items []T, fn func(context.Context, *T) error) error {
	if len(items) == 0 {
		return nil
	}
	var (
		mu     sync.Mutex
		errs   []error
		failed int
		wg     sync.WaitGroup
		next   = make(chan *T)
	)
	for range min(a.workers, len(items)) {
		wg.Go(func() {
			for item := range next {
				if err := fn(ctx, item); err != nil {
					mu.Lock()
					if failed++; len(errs) < maxErrors {
						errs = append(errs, err)
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range items {
		if ctx.Err() != nil {
			break
		}
		next <- &items[i]
	}
	close(next)
	wg.Wait()
	if failed > len(errs) {
		errs = append(errs, fmt.Errorf("and %d more", failed-len(errs)))
	}
	return errors.Join(errs...)
}
