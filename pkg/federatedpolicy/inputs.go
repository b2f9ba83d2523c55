package federatedpolicy

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
	"antreaplus.io/antreaplus/pkg/networks"
)

// inputs reads what the translation of p needs, and only that.
func (r *Reconciler) inputs(ctx context.Context, p *policyv1alpha1.FederatedNetworkPolicy) (*translate.Inputs, error) {
	deps := translate.DependenciesOf(p)
	in := &translate.Inputs{Services: map[types.NamespacedName]translate.ServiceInput{}}
	var err error
	if in.Member, err = r.member(ctx); err != nil {
		return nil, err
	}
	if deps.SelectedNamespaces {
		if in.Namespaces, err = r.namespaces(ctx); err != nil {
			return nil, err
		}
	}
	if deps.OwnNamespaceEntities || deps.SelectedNamespaces {
		var entities []federationv1alpha1.RemoteEntity
		for _, ns := range translate.EntityNamespaces(p, in.Namespaces) {
			list := &federationv1alpha1.RemoteEntityList{}
			if err := r.List(ctx, list, client.InNamespace(ns)); err != nil {
				return nil, fmt.Errorf("listing the RemoteEntities of Namespace %s: %w", ns, err)
			}
			entities = append(entities, list.Items...)
		}
		in.Entities = translate.NewIndex(entities)
	}
	if err := r.networkInputs(ctx, p, in); err != nil {
		return nil, err
	}
	for _, key := range deps.Services {
		svc, err := r.service(ctx, key)
		if err != nil {
			return nil, err
		}
		in.Services[key] = svc
	}
	return in, nil
}

// member reads this member's identity; a cluster outside any federation
// has none.
func (r *Reconciler) member(ctx context.Context) (translate.Member, error) {
	m := &federationv1alpha1.ClusterMembership{}
	err := r.Get(ctx, types.NamespacedName{Name: federationv1alpha1.MembershipName}, m)
	if apierrors.IsNotFound(err) {
		return translate.Member{}, nil
	}
	if err != nil {
		return translate.Member{}, fmt.Errorf("reading the ClusterMembership: %w", err)
	}
	return translate.Member{ClusterID: m.Spec.ClusterID, Labels: m.Labels, Withheld: m.Status.Withheld}, nil
}

func (r *Reconciler) namespaces(ctx context.Context) (map[string]map[string]string, error) {
	list := &corev1.NamespaceList{}
	if err := r.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing Namespaces: %w", err)
	}
	out := make(map[string]map[string]string, len(list.Items))
	for _, ns := range list.Items {
		out[ns.Name] = ns.Labels
	}
	return out, nil
}

// service reads what this member imports of a federated Service.
func (r *Reconciler) service(ctx context.Context, key types.NamespacedName) (translate.ServiceInput, error) {
	var in translate.ServiceInput
	imp := &mcsv1beta1.ServiceImport{}
	switch err := r.Get(ctx, key, imp); {
	case err == nil:
		in.Import = imp
	case !apierrors.IsNotFound(err):
		return in, fmt.Errorf("reading ServiceImport %s: %w", key, err)
	}
	slices := &discoveryv1.EndpointSliceList{}
	if err := r.List(ctx, slices, client.InNamespace(key.Namespace),
		client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation, mcsv1beta1.LabelServiceName: key.Name}); err != nil {
		return in, fmt.Errorf("listing the imported EndpointSlices of %s: %w", key, err)
	}
	in.Slices = slices.Items
	return in, nil
}

// networkInputs reads the member's Networks and the networks of the
// ExternalEntities of the policy's Namespace it applies to (their metadata
// only).
func (r *Reconciler) networkInputs(ctx context.Context, p *policyv1alpha1.FederatedNetworkPolicy, in *translate.Inputs) error {
	nets := &federationv1alpha1.NetworkList{}
	if err := r.List(ctx, nets); err != nil {
		return fmt.Errorf("listing Networks: %w", err)
	}
	in.Networks = networks.NewTopology(networks.FromAPI(nets.Items))
	in.ClusterNetwork = networks.ClusterNetwork(nets.Items, in.Member.ClusterID)
	entities := &metav1.PartialObjectMetadataList{}
	entities.SetGroupVersionKind(antreav1alpha2.GroupVersion.WithKind("ExternalEntityList"))
	if err := r.List(ctx, entities, client.InNamespace(p.Namespace)); err != nil {
		return fmt.Errorf("listing the ExternalEntities of Namespace %s: %w", p.Namespace, err)
	}
	applied := translate.AppliedToEntities(p)
	set := map[string]bool{}
	for i := range entities.Items {
		if applied(entities.Items[i].Labels) {
			set[entities.Items[i].Labels[federationv1alpha1.LabelNetwork]] = true
		}
	}
	list := make([]string, 0, len(set))
	for n := range set {
		list = append(list, n)
	}
	sort.Strings(list)
	in.EntityNetworks = map[string][]string{p.Namespace: list}
	return nil
}
