package selector

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/inventorysync"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
)

// Reconciler reconciles CloudEntitySelectors.
type Reconciler struct {
	// Client reads from the manager's cache and writes.
	Client client.Client
	// Status holds the outcome of the last poll of each region.
	Status *pollstatus.Store
}

// The cloud controller's rights for selectors (chart: files/rbac/cloud-controller.yaml):
// their status, and removing what a selector no longer imports.
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=cloudentityselectors;cloudprovideraccounts,verbs=get;list;watch
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=cloudentityselectors/status,verbs=patch
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=virtualmachines;networkinterfaces;cloudnativeservices,verbs=get;list;watch;delete;deletecollection

// SetupWithManager registers the reconciler with mgr.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("cloud-selector").
		For(&cloudv1alpha1.CloudEntitySelector{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// A selector that comes or goes can change which one is bound.
		Watches(&cloudv1alpha1.CloudEntitySelector{}, handler.EnqueueRequestsFromMapFunc(r.siblings)).
		Watches(&cloudv1alpha1.CloudProviderAccount{}, handler.EnqueueRequestsFromMapFunc(r.ofAccount)).
		WatchesRawSource(source.Channel(r.Status.SelectorEvents(), &handler.EnqueueRequestForObject{})).
		Complete(r)
}

func (r *Reconciler) siblings(ctx context.Context, o client.Object) []reconcile.Request {
	return r.requests(ctx, binding.AccountKey(o.(*cloudv1alpha1.CloudEntitySelector)))
}

func (r *Reconciler) ofAccount(ctx context.Context, o client.Object) []reconcile.Request {
	return r.requests(ctx, types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()})
}

func (r *Reconciler) requests(ctx context.Context, acct types.NamespacedName) []reconcile.Request {
	sels, err := binding.Selectors(ctx, r.Client, acct)
	if err != nil {
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(sels))
	for _, s := range sels {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: s.Namespace, Name: s.Name}})
	}
	return reqs
}

// Reconcile writes the selector's status and removes stale imports.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	sel := &cloudv1alpha1.CloudEntitySelector{}
	if err := r.Client.Get(ctx, req.NamespacedName, sel); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, r.collect(ctx, req.Namespace, req.Name, nil)
		}
		return reconcile.Result{}, err
	}
	acctKey := binding.AccountKey(sel)
	acct := &cloudv1alpha1.CloudProviderAccount{}
	if err := r.Client.Get(ctx, acctKey, acct); err != nil {
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		acct = nil
	}
	sels, err := binding.Selectors(ctx, r.Client, acctKey)
	if err != nil {
		return reconcile.Result{}, err
	}
	verdict, ok := binding.Resolve(acct, sels).Verdicts[req.NamespacedName]
	if !ok {
		// Not in the cache's index yet; the index event will come.
		return reconcile.Result{}, nil
	}
	keep := acct
	if !verdict.Accepted {
		keep = nil
	}
	if err := r.collect(ctx, sel.Namespace, sel.Name, keep); err != nil {
		return reconcile.Result{}, err
	}
	in := observed{verdict: verdict}
	if verdict.Accepted {
		if in.counts, err = r.count(ctx, sel, acct); err != nil {
			return reconcile.Result{}, err
		}
		in.regions = inventorysync.Regions(acct)
		in.results = r.Status.Regions(acctKey)
	}
	status := computeStatus(sel, in)
	if equality.Semantic.DeepEqual(status, sel.Status) {
		return reconcile.Result{}, nil
	}
	// The counts come from the cache, which may not have seen all of the
	// sync's writes yet: when they change, count again a moment later.
	var result reconcile.Result
	if status.VirtualMachines != sel.Status.VirtualMachines || status.NetworkInterfaces != sel.Status.NetworkInterfaces ||
		status.CloudNativeServices != sel.Status.CloudNativeServices {
		result.RequeueAfter = recountAfter
	}
	updated := sel.DeepCopy()
	updated.Status = status
	if err := r.Client.Status().Patch(ctx, updated, client.MergeFrom(sel)); err != nil {
		return reconcile.Result{}, fmt.Errorf("writing the status of CloudEntitySelector %s: %w", req.NamespacedName, err)
	}
	if verdict.Accepted != isAccepted(sel) {
		log.FromContext(ctx).Info("Selector acceptance changed", "accepted", verdict.Accepted, "reason", verdict.Reason, "message", verdict.Message)
	}
	return result, nil
}

// recountAfter is when a selector whose counts changed is counted again.
const recountAfter = time.Second

func (r *Reconciler) count(ctx context.Context, sel *cloudv1alpha1.CloudEntitySelector, acct *cloudv1alpha1.CloudProviderAccount) (counts, error) {
	o, err := inventorysync.ListImported(ctx, r.Client, sel.Namespace, inventorysync.SelectorLabels(sel, acct))
	if err != nil {
		return counts{}, err
	}
	return counts{vms: len(o.VirtualMachines), nics: len(o.NetworkInterfaces), services: len(o.CloudNativeServices)}, nil
}
