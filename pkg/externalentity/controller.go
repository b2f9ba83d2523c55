package externalentity

import (
	"context"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// Options configure the controller.
type Options struct {
	// AgentlessNode is the externalNode of agentless VMs and services;
	// default "antreaplus-cloud-controller".
	AgentlessNode string
	// Concurrency is how many entities are reconciled at a time; default 8.
	Concurrency int
	// Tenants, if set, limits the writes to the tenants (namespaces) this
	// replica manages; a tenant it starts managing is reconciled whole.
	Tenants tenancy.Source
}

// The cloud controller's rights for ExternalEntities (chart:
// files/rbac/cloud-controller.yaml), owned by their interface or service
// with blockOwnerDeletion.
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=networkinterfaces;cloudnativeservices;virtualmachines,verbs=get;list;watch
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=networkinterfaces/finalizers;cloudnativeservices/finalizers,verbs=update
// +kubebuilder:rbac:groups=crd.antrea.io,resources=externalentities,verbs=get;list;watch;create;update;delete

// SetupWithManager registers the ExternalEntity controllers of interfaces
// and of services with mgr.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.AgentlessNode == "" {
		opts.AgentlessNode = "antreaplus-cloud-controller"
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = 8
	}
	w := writer{c: mgr.GetClient(), node: opts.AgentlessNode, tenants: opts.Tenants}
	changed := builder.WithPredicates(predicate.GenerationChangedPredicate{})
	copts := controller.Options{MaxConcurrentReconciles: opts.Concurrency}
	b := ctrl.NewControllerManagedBy(mgr).Named("externalentity-interface").
		For(&cloudv1alpha1.NetworkInterface{}, changed).
		Owns(&antreav1alpha2.ExternalEntity{}).
		Watches(&cloudv1alpha1.VirtualMachine{}, handler.EnqueueRequestsFromMapFunc(interfacesOf), changed).
		WithOptions(copts)
	if opts.Tenants != nil {
		b = b.WatchesRawSource(source.Channel(opts.Tenants.Subscribe(), handler.EnqueueRequestsFromMapFunc(w.inTenant(&cloudv1alpha1.NetworkInterfaceList{}))))
	}
	if err := b.Complete(reconcile.Func(w.reconcileInterface)); err != nil {
		return err
	}
	b = ctrl.NewControllerManagedBy(mgr).Named("externalentity-service").
		For(&cloudv1alpha1.CloudNativeService{}, changed).
		Owns(&antreav1alpha2.ExternalEntity{}).
		WithOptions(copts)
	if opts.Tenants != nil {
		b = b.WatchesRawSource(source.Channel(opts.Tenants.Subscribe(), handler.EnqueueRequestsFromMapFunc(w.inTenant(&cloudv1alpha1.CloudNativeServiceList{}))))
	}
	return b.Complete(reconcile.Func(w.reconcileService))
}

// inTenant maps a tenant (Namespace) to its objects of list's kind.
func (w writer) inTenant(list client.ObjectList) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := w.c.List(ctx, l, client.InNamespace(o.GetName())); err != nil {
			return nil
		}
		var reqs []reconcile.Request
		_ = meta.EachListItem(l, func(obj runtime.Object) error {
			if m, ok := obj.(client.Object); ok {
				reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()}})
			}
			return nil
		})
		return reqs
	}
}

// owns reports whether this replica writes the tenant's entities.
func (w writer) owns(namespace string) bool { return w.tenants == nil || w.tenants.Owns(namespace) }

// interfacesOf maps a VM to its interfaces, whose entities carry its tags.
func interfacesOf(_ context.Context, o client.Object) []reconcile.Request {
	vm := o.(*cloudv1alpha1.VirtualMachine)
	reqs := make([]reconcile.Request, 0, len(vm.Spec.NetworkInterfaces))
	for _, n := range vm.Spec.NetworkInterfaces {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: vm.Namespace, Name: n}})
	}
	return reqs
}

// writer reads sources from the cache and writes ExternalEntities.
type writer struct {
	c       client.Client
	node    string
	tenants tenancy.Source
}

func (w writer) reconcileInterface(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if !w.owns(req.Namespace) {
		return reconcile.Result{}, nil
	}
	nic := &cloudv1alpha1.NetworkInterface{}
	if err := w.c.Get(ctx, req.NamespacedName, nic); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, w.remove(ctx, req.Namespace, NameForInterface(req.Name), "NetworkInterface")
		}
		return reconcile.Result{}, err
	}
	if nic.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	vm := &cloudv1alpha1.VirtualMachine{}
	if err := w.c.Get(ctx, types.NamespacedName{Namespace: nic.Namespace, Name: nic.Spec.VirtualMachine}, vm); err != nil {
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		vm = nil // its event brings the VM's tags and mode later
	}
	return reconcile.Result{}, w.upsert(ctx, ForNetworkInterface(nic, vm, w.node))
}

func (w writer) reconcileService(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if !w.owns(req.Namespace) {
		return reconcile.Result{}, nil
	}
	svc := &cloudv1alpha1.CloudNativeService{}
	if err := w.c.Get(ctx, req.NamespacedName, svc); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, w.remove(ctx, req.Namespace, NameForService(req.Name), "CloudNativeService")
		}
		return reconcile.Result{}, err
	}
	if svc.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, w.upsert(ctx, ForCloudNativeService(svc, w.node))
}

// upsert creates want, or updates the stored entity when it differs.
func (w writer) upsert(ctx context.Context, want *antreav1alpha2.ExternalEntity) error {
	have := &antreav1alpha2.ExternalEntity{}
	err := w.c.Get(ctx, client.ObjectKeyFromObject(want), have)
	switch {
	case apierrors.IsNotFound(err):
		if err := w.c.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating ExternalEntity %s/%s: %w", want.Namespace, want.Name, err)
		}
		return nil
	case err != nil:
		return err
	case upToDate(want, have):
		return nil
	}
	updated := have.DeepCopy()
	updated.Spec = want.Spec
	updated.OwnerReferences = want.OwnerReferences
	updated.Labels = maps.Clone(want.Labels)
	for k, v := range have.Labels {
		if !isManaged(k) {
			updated.Labels[k] = v
		}
	}
	setAddresses(updated, want.Annotations[federationv1alpha1.AnnotationAddresses])
	if err := w.c.Update(ctx, updated); err != nil {
		return fmt.Errorf("updating ExternalEntity %s/%s: %w", want.Namespace, want.Name, err)
	}
	return nil
}

// setAddresses sets (or, when empty, removes) the annotation that
// classifies an entity's addresses, keeping the others.
func setAddresses(ee *antreav1alpha2.ExternalEntity, value string) {
	if value == "" {
		delete(ee.Annotations, federationv1alpha1.AnnotationAddresses)
		return
	}
	if ee.Annotations == nil {
		ee.Annotations = map[string]string{}
	}
	ee.Annotations[federationv1alpha1.AnnotationAddresses] = value
}

func upToDate(want, have *antreav1alpha2.ExternalEntity) bool {
	if !equality.Semantic.DeepEqual(want.Spec, have.Spec) || !equality.Semantic.DeepEqual(want.OwnerReferences, have.OwnerReferences) {
		return false
	}
	if want.Annotations[federationv1alpha1.AnnotationAddresses] != have.Annotations[federationv1alpha1.AnnotationAddresses] {
		return false
	}
	n := 0
	for k, v := range have.Labels {
		if !isManaged(k) {
			continue
		}
		if n++; want.Labels[k] != v {
			return false
		}
	}
	return n == len(want.Labels)
}

// remove deletes the entity of a source of kind that is gone, if the
// garbage collector has not yet.
func (w writer) remove(ctx context.Context, namespace, name, kind string) error {
	ee := &antreav1alpha2.ExternalEntity{}
	if err := w.c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, ee); err != nil {
		return client.IgnoreNotFound(err)
	}
	if o := metav1.GetControllerOf(ee); ee.DeletionTimestamp != nil || o == nil || o.Kind != kind {
		return nil
	}
	err := w.c.Delete(ctx, ee, client.Preconditions{UID: ptr.To(ee.UID)}, client.PropagationPolicy(metav1.DeletePropagationBackground))
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting ExternalEntity %s/%s: %w", namespace, name, err)
	}
	return nil
}
