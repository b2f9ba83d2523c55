package inventorysync

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// Key is the unit of work: one region of one account.
type Key = pollstatus.Key

// Reconciler polls one region of one account per reconcile.
type Reconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// Providers holds each account's provider.
	Providers *accountprovider.Set
	// Status receives the outcome of every poll.
	Status *pollstatus.Store
	// Tenants, if set, says which tenants this replica manages: the
	// accounts of the others are not polled (every poll begins a unit of
	// the tenant's work, so that a replica giving a tenant up stops at
	// once and releases it only after its last poll).
	Tenants tenancy.Gate
	Options
}

// The cloud controller's rights for the inventory (chart:
// files/rbac/cloud-controller.yaml): the imported objects; a NetworkInterface
// is owned by its VM with blockOwnerDeletion.
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=cloudprovideraccounts;cloudentityselectors,verbs=get;list;watch
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=virtualmachines;networkinterfaces;cloudnativeservices,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=virtualmachines/finalizers,verbs=update

// SetupWithManager registers the poll loop with mgr.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.Options = r.withDefaults()
	return builder.TypedControllerManagedBy[Key](mgr).
		Named("cloud-inventorysync").
		Watches(&cloudv1alpha1.CloudProviderAccount{}, handler.TypedEnqueueRequestsFromMapFunc(r.accountRegions),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&cloudv1alpha1.CloudEntitySelector{}, handler.TypedEnqueueRequestsFromMapFunc(r.selectorRegions),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.TypedChannel(r.Providers.Events(), handler.TypedEnqueueRequestsFromMapFunc(r.accountRegions))).
		WithOptions(controller.TypedOptions[Key]{MaxConcurrentReconciles: r.Concurrency}).
		Complete(r)
}

// accountRegions maps an account to its regions, reading it from the cache
// when the event carries only its name.
func (r *Reconciler) accountRegions(ctx context.Context, o client.Object) []Key {
	key := types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
	acct, ok := o.(*cloudv1alpha1.CloudProviderAccount)
	if !ok || Regions(acct) == nil {
		acct = &cloudv1alpha1.CloudProviderAccount{}
		if err := r.Client.Get(ctx, key, acct); err != nil {
			return nil
		}
	}
	var keys []Key
	for _, region := range Regions(acct) {
		keys = append(keys, Key{Account: key, Region: region})
	}
	return keys
}

func (r *Reconciler) selectorRegions(ctx context.Context, o client.Object) []Key {
	key := binding.AccountKey(o.(*cloudv1alpha1.CloudEntitySelector))
	acct := &cloudv1alpha1.CloudProviderAccount{}
	acct.Name, acct.Namespace = key.Name, key.Namespace
	return r.accountRegions(ctx, acct)
}

// Reconcile polls the region and makes the imported objects follow it.
func (r *Reconciler) Reconcile(ctx context.Context, key Key) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("account", key.Account, "region", key.Region)
	ctx = log.IntoContext(ctx, logger)
	acct := &cloudv1alpha1.CloudProviderAccount{}
	if err := r.Client.Get(ctx, key.Account, acct); err != nil {
		if apierrors.IsNotFound(err) {
			r.Status.Forget(key.Account)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if r.Tenants != nil {
		// The poll and its writes are one unit of the tenant's work: a
		// replica giving the tenant up releases it only after.
		done, ok := r.Tenants.Begin(key.Account.Namespace)
		if !ok {
			// Managed elsewhere, or a renewal of the claim is late: looked
			// at again next interval (ownership's return also rebuilds the
			// provider, which requeues at once), so that a moment without
			// the claim never ends the account's polls.
			logger.V(1).Info("Not polled: the tenant is not managed here now")
			return ctrl.Result{RequeueAfter: r.Interval(acct)}, nil
		}
		defer done()
	}
	if !slices.Contains(Regions(acct), key.Region) {
		r.Status.Forget(key.Account, Regions(acct)...)
		return ctrl.Result{}, nil
	}
	entry, ok := r.Providers.Get(key.Account)
	if !ok {
		return ctrl.Result{}, nil // the account reconciler announces its provider
	}
	sel, _, err := binding.Bound(ctx, r.Client, key.Account, acct)
	if err != nil {
		return ctrl.Result{}, err
	}
	interval := r.Interval(acct)
	if sel == nil {
		return r.checkCredentials(ctx, key, entry, interval), nil
	}
	snap, err := r.poll(ctx, entry.Provider, key.Region)
	if ctx.Err() != nil {
		return ctrl.Result{}, ctx.Err()
	}
	out := pollstatus.Outcome{Selector: types.NamespacedName{Namespace: sel.Namespace, Name: sel.Name}, ProviderGeneration: entry.Generation}
	if err != nil {
		out.Reason, out.Message = Classify(err)
		res := r.Status.Record(key, out, time.Now())
		logger.Info("Poll failed; imported objects kept as they are", "reason", out.Reason, "error", err.Error(), "failures", res.Failures)
		return ctrl.Result{RequeueAfter: Backoff(interval, res.Failures)}, nil
	}
	out.Reason = cloudv1alpha1.AccountReasonPolled
	if len(snap.Failed) > 0 {
		// Some kinds of service could not be read: the VMs are followed
		// all the same, what those kinds imported is kept, and the region
		// says which kinds and why.
		out.Reason, out.Message = ClassifyPartial(snap.Failed)
		out.Partial = true
		logger.Info("Poll read part of the region; objects of the kinds not read are kept", "reason", out.Reason, "error", out.Message)
	}
	writes, err := r.sync(ctx, acct, sel, snap)
	out.Writes = writes
	if err != nil {
		out.ApplyError = err.Error()
	}
	r.Status.Record(key, out, time.Now())
	if writes > 0 {
		logger.V(1).Info("Imported objects updated", "writes", writes, "vms", len(snap.VMs))
	}
	if err != nil {
		// Not returned as an error: its fast retries would poll the cloud
		// again each time. The next poll retries the writes.
		logger.Error(err, "Writing the imported objects failed", "writes", writes)
	}
	return ctrl.Result{RequeueAfter: interval}, nil
}

// checkCredentials polls a region of an account without a selector, so
// that its status says whether the credentials work: once per provider
// when the poll got through, again (with the backoff of failed polls)
// until it does, so that a refusal is not the account's last word when
// it was a moment's.
func (r *Reconciler) checkCredentials(ctx context.Context, key Key, entry accountprovider.Entry, interval time.Duration) ctrl.Result {
	if res, ok := r.Status.Get(key); ok && res.ProviderGeneration == entry.Generation && res.Selector.Name == "" && res.Succeeded() {
		return ctrl.Result{}
	}
	snap, err := r.poll(ctx, entry.Provider, key.Region)
	if ctx.Err() != nil {
		return ctrl.Result{}
	}
	out := pollstatus.Outcome{Reason: cloudv1alpha1.AccountReasonPolled, ProviderGeneration: entry.Generation}
	switch {
	case err != nil:
		out.Reason, out.Message = Classify(err)
	case len(snap.Failed) > 0:
		out.Reason, out.Message = ClassifyPartial(snap.Failed)
		out.Partial = true
	}
	res := r.Status.Record(key, out, time.Now())
	if res.Succeeded() {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: Backoff(interval, res.Failures)}
}

func (r *Reconciler) poll(ctx context.Context, p provider.Provider, region string) (*provider.Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, r.PollTimeout)
	defer cancel()
	return p.Inventory(ctx, region)
}

// sync makes the objects of the snapshot's region what the snapshot says.
func (r *Reconciler) sync(ctx context.Context, acct *cloudv1alpha1.CloudProviderAccount, sel *cloudv1alpha1.CloudEntitySelector, snap *provider.Snapshot) (int, error) {
	desired := inventory.Desired(inventory.Input{
		Selector:  sel,
		Account:   cloudv1alpha1.CloudProviderAccountReference{Name: acct.Name, Namespace: acct.Namespace},
		Snapshots: []*provider.Snapshot{snap},
	})
	existing, err := ListImported(ctx, r.Client, sel.Namespace, SelectorLabels(sel, acct))
	if err != nil {
		return 0, err
	}
	nets, err := r.syncNetworks(ctx, snap, desired)
	if err != nil {
		return nets, err
	}
	existing = inRegion(existing, snap.Region)
	existing.CloudNativeServices = filter(existing.CloudNativeServices, func(s *cloudv1alpha1.CloudNativeService) bool {
		return !snap.FailedKind(provider.ServiceKind(s.Spec.Kind))
	})
	plan := inventory.Diff(desired, existing, nil)
	if plan.Writes() == 0 {
		return nets, nil
	}
	n, err := apply(ctx, r.Client, sel, plan, r.Workers)
	return nets + n, err
}

// Classify turns a provider error into an account condition reason and the
// cloud's message.
func Classify(err error) (reason, message string) {
	switch {
	case errors.Is(err, provider.ErrAuthentication):
		reason = cloudv1alpha1.AccountReasonAuthenticationFailed
	case errors.Is(err, provider.ErrRegionUnavailable):
		reason = cloudv1alpha1.AccountReasonRegionUnavailable
	case errors.Is(err, provider.ErrThrottled):
		reason = cloudv1alpha1.AccountReasonThrottled
	default:
		reason = cloudv1alpha1.AccountReasonPollFailed
	}
	return reason, requestID.ReplaceAllString(fmt.Sprint(err), "")
}

// ClassifyPartial turns the kinds a poll could not read into a reason
// (the most telling of their errors: a refusal of the credentials wins)
// and a message naming each kind, the same at every poll that fails the
// same way.
func ClassifyPartial(failed []provider.KindFailure) (reason, message string) {
	rank := map[string]int{cloudv1alpha1.AccountReasonAuthenticationFailed: 0, cloudv1alpha1.AccountReasonRegionUnavailable: 1,
		cloudv1alpha1.AccountReasonThrottled: 2, cloudv1alpha1.AccountReasonPollFailed: 3}
	parts := make([]string, 0, len(failed))
	for _, f := range failed {
		r, m := Classify(f.Err)
		if reason == "" || rank[r] < rank[reason] {
			reason = r
		}
		var kinds []string
		for _, k := range f.Kinds {
			kinds = append(kinds, kindNames[k])
		}
		parts = append(parts, fmt.Sprintf("%s not read (%s)", strings.Join(kinds, ", "), m))
	}
	slices.Sort(parts)
	return reason, strings.Join(parts, "; ") + "; the VMs were polled"
}

// kindNames name kinds of service for people.
var kindNames = map[provider.ServiceKind]string{
	provider.AWSRDS: "databases (RDS)", provider.AWSLoadBalancer: "load balancers (ELBv2)",
	provider.AzureLoadBalancer: "load balancers", provider.AzureSQL: "SQL servers",
}

// requestID matches the request id AWS errors carry, different on every
// call: left in, every failed poll would change the account's status.
var requestID = regexp.MustCompile(`RequestID: [^,]*, `)
