package federatedpolicy

import (
	"context"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
)

// The member controller's rights for federated policies (chart:
// files/rbac/member-controller.yaml): the policies and their status, the
// derived Antrea policies and Groups (owned, with blockOwnerDeletion: the
// finalizers right is what OwnerReferencesPermissionEnforcement asks), and
// the inputs of a translation.
// +kubebuilder:rbac:groups=policy.antreaplus.io,resources=federatednetworkpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy.antreaplus.io,resources=federatednetworkpolicies/status;federatednetworkpolicies/finalizers,verbs=update
// +kubebuilder:rbac:groups=crd.antrea.io,resources=networkpolicies;groups,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=remoteentities;clustermemberships;networks,verbs=get;list;watch
// +kubebuilder:rbac:groups=crd.antrea.io,resources=externalentities,verbs=get;list;watch
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=serviceimports,verbs=get;list;watch
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// Reconciler translates FederatedNetworkPolicies into their derived Antrea
// NetworkPolicies and Groups, and writes their status.
type Reconciler struct {
	client.Client
	// AntreaInstalled tells whether a stock Antrea runs in this member
	// (DetectAntrea): it enforces the derived policies for Pods.
	AntreaInstalled bool
}

// Field indexes of federated policies, so that an input change finds the
// policies it affects.
const (
	// indexEntityNamespaces: the Namespaces whose RemoteEntities a policy
	// reads: its own, or anyNamespace for a namespaceSelector peer.
	indexEntityNamespaces = "federatedpolicy.entityNamespaces"
	// indexServices: the federated Services a policy names ("ns/name").
	indexServices = "federatedpolicy.services"
	anyNamespace  = "*"
)

// Setup detects Antrea and adds the controller to mgr.
func Setup(ctx context.Context, mgr ctrl.Manager) error {
	antrea, err := DetectAntrea(mgr.GetConfig())
	if err != nil {
		return err
	}
	log.FromContext(ctx).Info("Federated policies: Antrea detection", "antreaInstalled", antrea)
	return (&Reconciler{Client: mgr.GetClient(), AntreaInstalled: antrea}).SetupWithManager(ctx, mgr)
}

// DetectAntrea tells whether Antrea's control plane API
// (v1beta2.controlplane.antrea.io) is served: a stock Antrea is installed.
func DetectAntrea(cfg *rest.Config) (bool, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return false, fmt.Errorf("creating a discovery client: %w", err)
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		return false, fmt.Errorf("detecting Antrea (listing API groups): %w", err)
	}
	for _, g := range groups.Groups {
		if g.Name != "controlplane.antrea.io" {
			continue
		}
		for _, v := range g.Versions {
			if v.Version == "v1beta2" {
				return true, nil
			}
		}
	}
	return false, nil
}

// SetupWithManager indexes the policies and watches every input of a
// translation, mapping each event to the policies it can affect.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager) error {
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &policyv1alpha1.FederatedNetworkPolicy{}, indexEntityNamespaces, entityNamespaces); err != nil {
		return fmt.Errorf("indexing federated policies by Namespace of their remote entities: %w", err)
	}
	if err := idx.IndexField(ctx, &policyv1alpha1.FederatedNetworkPolicy{}, indexServices, services); err != nil {
		return fmt.Errorf("indexing federated policies by federated Service: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("federatedpolicy").
		For(&policyv1alpha1.FederatedNetworkPolicy{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&antreav1beta1.NetworkPolicy{}).
		Owns(&antreav1beta1.Group{}).
		Watches(&antreav1beta1.NetworkPolicy{}, handler.EnqueueRequestsFromMapFunc(takenNameToPolicy)).
		Watches(&federationv1alpha1.RemoteEntity{}, handler.EnqueueRequestsFromMapFunc(r.entityToPolicies)).
		Watches(&mcsv1beta1.ServiceImport{}, handler.EnqueueRequestsFromMapFunc(r.importToPolicies)).
		Watches(&discoveryv1.EndpointSlice{}, handler.EnqueueRequestsFromMapFunc(r.sliceToPolicies), builder.WithPredicates(importedSlices())).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.namespaceToPolicies), builder.WithPredicates(labelsChanged())).
		Watches(&federationv1alpha1.ClusterMembership{}, handler.EnqueueRequestsFromMapFunc(r.allPolicies), builder.WithPredicates(membershipChanged())).
		Watches(&federationv1alpha1.Network{}, handler.EnqueueRequestsFromMapFunc(r.allPolicies), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesMetadata(&antreav1alpha2.ExternalEntity{}, handler.EnqueueRequestsFromMapFunc(r.namespacePolicies), builder.WithPredicates(labelsChanged())).
		Complete(r)
}

func entityNamespaces(o client.Object) []string {
	p, ok := o.(*policyv1alpha1.FederatedNetworkPolicy)
	if !ok {
		return nil
	}
	d := translate.DependenciesOf(p)
	var out []string
	if d.OwnNamespaceEntities {
		out = append(out, p.Namespace)
	}
	if d.SelectedNamespaces {
		out = append(out, anyNamespace)
	}
	return out
}

func services(o client.Object) []string {
	p, ok := o.(*policyv1alpha1.FederatedNetworkPolicy)
	if !ok {
		return nil
	}
	var out []string
	for _, s := range translate.DependenciesOf(p).Services {
		out = append(out, s.String())
	}
	return out
}

// policies returns the policies whose index field holds one of values.
func (r *Reconciler) policies(ctx context.Context, field string, values ...string) []reconcile.Request {
	var out []reconcile.Request
	for _, v := range values {
		list := &policyv1alpha1.FederatedNetworkPolicyList{}
		if err := r.List(ctx, list, client.MatchingFields{field: v}); err != nil {
			log.FromContext(ctx).Error(err, "Listing federated policies", "field", field, "value", v)
			continue
		}
		for i := range list.Items {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return out
}

func (r *Reconciler) entityToPolicies(ctx context.Context, o client.Object) []reconcile.Request {
	return r.policies(ctx, indexEntityNamespaces, o.GetNamespace(), anyNamespace)
}

func (r *Reconciler) importToPolicies(ctx context.Context, o client.Object) []reconcile.Request {
	return r.policies(ctx, indexServices, client.ObjectKeyFromObject(o).String())
}

func (r *Reconciler) sliceToPolicies(ctx context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[mcsv1beta1.LabelServiceName]
	return r.policies(ctx, indexServices, types.NamespacedName{Namespace: o.GetNamespace(), Name: name}.String())
}

func (r *Reconciler) namespaceToPolicies(ctx context.Context, _ client.Object) []reconcile.Request {
	return r.policies(ctx, indexEntityNamespaces, anyNamespace)
}

func (r *Reconciler) allPolicies(ctx context.Context, _ client.Object) []reconcile.Request {
	list := &policyv1alpha1.FederatedNetworkPolicyList{}
	if err := r.List(ctx, list); err != nil {
		log.FromContext(ctx).Error(err, "Listing federated policies")
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out
}

// namespacePolicies maps an ExternalEntity to the policies of its
// Namespace, which may be applied to it: its creation, deletion or a
// change of its labels may change the networks they are enforced in.
func (r *Reconciler) namespacePolicies(ctx context.Context, o client.Object) []reconcile.Request {
	list := &policyv1alpha1.FederatedNetworkPolicyList{}
	if err := r.List(ctx, list, client.InNamespace(o.GetNamespace())); err != nil {
		log.FromContext(ctx).Error(err, "Listing federated policies", "namespace", o.GetNamespace())
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out
}

// takenNameToPolicy maps a NetworkPolicy that no federated policy controls
// and whose name is a derived one (fnp-<name>) to the federated policy of
// that name: it may be waiting for the name.
func takenNameToPolicy(_ context.Context, o client.Object) []reconcile.Request {
	name, ok := strings.CutPrefix(o.GetName(), translate.PolicyPrefix)
	if !ok || metav1.GetControllerOf(o) != nil {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

// importedSlices passes the EndpointSlices the federation imports.
func importedSlices() predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetLabels()[federationv1alpha1.LabelManagedBy] == federationv1alpha1.ManagedByFederation && o.GetLabels()[mcsv1beta1.LabelServiceName] != ""
	})
}

// membershipChanged passes the ClusterMembership changes a translation
// reads: its spec, its labels, its status.withheld (not the leader's own
// status: who leads, since when).
func membershipChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		a, okA := e.ObjectOld.(*federationv1alpha1.ClusterMembership)
		b, okB := e.ObjectNew.(*federationv1alpha1.ClusterMembership)
		return !okA || !okB || a.Generation != b.Generation || !maps.Equal(a.Labels, b.Labels) ||
			!equality.Semantic.DeepEqual(a.Status.Withheld, b.Status.Withheld)
	}}
}

// labelsChanged passes creations, deletions and label changes.
func labelsChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels())
	}}
}
