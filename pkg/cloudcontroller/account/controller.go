package account

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// Reconciler reconciles CloudProviderAccounts.
type Reconciler struct {
	// Client reads from the manager's cache and writes status.
	Client client.Client
	// APIReader reads Secrets without caching them.
	APIReader client.Reader
	// Providers receives each account's provider.
	Providers *accountprovider.Set
	// Status holds the outcome of the last poll of each region.
	Status *pollstatus.Store
	// ProviderOptions tune the providers built.
	ProviderOptions accountprovider.Options
	// Heartbeat is how stale lastSuccessfulPollTime may get before it is
	// written again on its own; 0 refreshes it only with another change.
	Heartbeat time.Duration
	// Recorder, if set, gets an event when the account's readiness changes.
	Recorder record.EventRecorder
	// Tenants, if set, says which tenants (namespaces) this replica
	// manages: the accounts of the others are left alone (no provider, no
	// status write), and a change of ownership reconciles a tenant's
	// accounts again.
	Tenants tenancy.Source
}

// The cloud controller's rights for accounts (chart: files/rbac/cloud-controller.yaml):
// their status, the Secrets they name (in any namespace), the events on them.
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=cloudprovideraccounts;cloudentityselectors,verbs=get;list;watch
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=cloudprovideraccounts/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// SetupWithManager registers the reconciler with mgr; AddIndex must have
// been called, and binding.AddIndex.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toAccount := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: binding.AccountKey(o.(*cloudv1alpha1.CloudEntitySelector))}}
	})
	b := ctrl.NewControllerManagedBy(mgr).
		Named("cloud-account").
		For(&cloudv1alpha1.CloudProviderAccount{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.secretAccounts)).
		Watches(&cloudv1alpha1.CloudEntitySelector{}, toAccount).
		WatchesRawSource(source.Channel(r.Status.AccountEvents(), &handler.EnqueueRequestForObject{}))
	if r.Tenants != nil {
		b = b.WatchesRawSource(source.Channel(r.Tenants.Subscribe(), handler.EnqueueRequestsFromMapFunc(r.tenantAccounts)))
	}
	return b.Complete(r)
}

// tenantAccounts maps a tenant (Namespace) to its accounts.
func (r *Reconciler) tenantAccounts(ctx context.Context, o client.Object) []reconcile.Request {
	var list cloudv1alpha1.CloudProviderAccountList
	if err := r.Client.List(ctx, &list, client.InNamespace(o.GetName())); err != nil {
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for _, a := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: a.Namespace, Name: a.Name}})
	}
	return reqs
}

// Reconcile builds the account's provider and writes its status.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	acct := &cloudv1alpha1.CloudProviderAccount{}
	if err := r.Client.Get(ctx, req.NamespacedName, acct); err != nil {
		if apierrors.IsNotFound(err) {
			r.Providers.Remove(req.NamespacedName)
			r.Status.Forget(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if acct.DeletionTimestamp != nil {
		r.Providers.Remove(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	var tenant *tenancy.State
	if r.Tenants != nil {
		st := r.Tenants.State(acct.Namespace)
		if !st.Owned {
			// Another replica or instance manages the tenant, or nobody
			// yet: no provider here, so nothing polls it, and no status
			// write. A tenant nobody claims yet is claimed soon.
			r.Providers.Remove(req.NamespacedName)
			r.Status.Forget(req.NamespacedName)
			if st.Holder == "" {
				r.Tenants.Kick()
			}
			return reconcile.Result{}, nil
		}
		tenant = &st
	}
	in, err := r.observe(ctx, acct)
	if err != nil {
		return reconcile.Result{}, err
	}
	in.tenant = tenant
	status := computeStatus(acct, in, r.Heartbeat)
	if equality.Semantic.DeepEqual(status, acct.Status) {
		return reconcile.Result{}, nil
	}
	updated := acct.DeepCopy()
	updated.Status = status
	if err := r.Client.Status().Patch(ctx, updated, client.MergeFrom(acct)); err != nil {
		return reconcile.Result{}, fmt.Errorf("writing the status of CloudProviderAccount %s: %w", req.NamespacedName, err)
	}
	r.announce(ctx, acct, updated)
	return reconcile.Result{}, nil
}

// observe reads the Secret, builds the provider and gathers what the
// status is computed from.
func (r *Reconciler) observe(ctx context.Context, acct *cloudv1alpha1.CloudProviderAccount) (observed, error) {
	key := types.NamespacedName{Namespace: acct.Namespace, Name: acct.Name}
	var in observed
	cfg, err := accountprovider.Read(ctx, r.APIReader, acct, r.ProviderOptions)
	var cerr *accountprovider.ConfigError
	switch {
	case errors.As(err, &cerr):
		r.Providers.Remove(key)
		in.configErr = cerr
	case err != nil:
		return in, err
	default:
		entry, changed, err := r.Providers.Ensure(key, cfg)
		if err != nil {
			r.Providers.Remove(key)
			in.configErr = &accountprovider.ConfigError{Reason: ReasonInvalidConfiguration, Message: err.Error()}
			break
		}
		if changed {
			log.FromContext(ctx).Info("Built the account's provider", "provider", acct.Spec.Provider, "generation", entry.Generation)
		}
		in.results = current(r.Status.Regions(key), entry.Generation)
	}
	sels, err := binding.Selectors(ctx, r.Client, key)
	if err != nil {
		return in, err
	}
	in.bound = binding.Resolve(acct, sels).Bound
	return in, nil
}

// current keeps the results of polls made with the provider of generation
// gen; older ones were made with other credentials.
func current(results map[string]pollstatus.Result, gen int64) map[string]pollstatus.Result {
	for region, res := range results {
		if res.ProviderGeneration != gen {
			delete(results, region)
		}
	}
	return results
}

// secretAccounts maps a Secret to the accounts that use it.
func (r *Reconciler) secretAccounts(ctx context.Context, o client.Object) []reconcile.Request {
	var list cloudv1alpha1.CloudProviderAccountList
	if err := r.Client.List(ctx, &list, client.MatchingFields{IndexSecret: o.GetNamespace() + "/" + o.GetName()}); err != nil {
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for _, a := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: a.Namespace, Name: a.Name}})
	}
	return reqs
}

// announce records an event when readiness changed.
func (r *Reconciler) announce(ctx context.Context, before, after *cloudv1alpha1.CloudProviderAccount) {
	was, is := condition(before.Status.Conditions, cloudv1alpha1.ConditionReady), condition(after.Status.Conditions, cloudv1alpha1.ConditionReady)
	if is == nil || (was != nil && was.Status == is.Status && was.Reason == is.Reason) {
		return
	}
	log.FromContext(ctx).Info("Account readiness changed", "ready", is.Status, "reason", is.Reason, "message", is.Message)
	if r.Recorder == nil {
		return
	}
	kind := corev1.EventTypeNormal
	if is.Status != "True" {
		kind = corev1.EventTypeWarning
	}
	r.Recorder.Event(after, kind, is.Reason, is.Message)
}
