package membership

import (
	"context"
	"fmt"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// cleanMember deletes, in member, everything the federation created there.
func cleanMember(ctx context.Context, r reporter, member Cluster, cl client.Client) error {
	r.step(member.Name, "removing the federation account, its roles and Leases ...")
	for _, obj := range accountObjects() {
		if _, err := remove(ctx, cl, obj); err != nil {
			return fmt.Errorf("%s: %w", member.Name, err)
		}
	}
	err := cl.DeleteAllOf(ctx, &coordinationv1.Lease{}, client.InNamespace(federationv1alpha1.SystemNamespace))
	if err != nil && !meta.IsNoMatchError(err) {
		return fmt.Errorf("%s: deleting the Leases in %s: %w", member.Name, federationv1alpha1.SystemNamespace, err)
	}
	n, err := removeImports(ctx, cl)
	if err != nil {
		return fmt.Errorf("%s: %w", member.Name, err)
	}
	if n > 0 {
		r.step(member.Name, "removed %d imported object(s) the federation wrote", n)
	}
	r.step(member.Name, "removing its identity (ClusterMembership %s) ...", federationv1alpha1.MembershipName)
	if _, err := remove(ctx, cl, membershipObject(identity{}, nil)); err != nil {
		return fmt.Errorf("%s: %w", member.Name, err)
	}
	return removeNamespaceIfEmpty(ctx, r, member, cl)
}

// accountObjects are the objects of the federation account, in deletion order.
func accountObjects() []client.Object {
	roles, bindings := accessObjects(true)
	objs := []client.Object{flowSchema(), clusterRoleBinding(), clusterRole()}
	for _, b := range bindings {
		objs = append(objs, b)
	}
	for _, ro := range roles {
		objs = append(objs, ro)
	}
	return append(objs, tokenSecret(), serviceAccount())
}

// removeImports deletes the objects the federation wrote into the member
// as its imports: every ServiceImport, EndpointSlice and Service labelled
// as managed by the federation, in any namespace.
func removeImports(ctx context.Context, cl client.Client) (int, error) {
	managed := client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}
	lists := []client.ObjectList{&mcsv1beta1.ServiceImportList{}, &discoveryv1.EndpointSliceList{}, &corev1.ServiceList{}}
	n := 0
	for _, list := range lists {
		if err := cl.List(ctx, list, managed); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return n, fmt.Errorf("listing %T: %w", list, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return n, err
		}
		for _, item := range items {
			obj, ok := item.(client.Object)
			if !ok {
				continue
			}
			removed, err := remove(ctx, cl, obj)
			if err != nil {
				return n, err
			}
			if removed {
				n++
			}
		}
	}
	return n, nil
}

// removeNamespaceIfEmpty deletes the federation namespace unless something
// else still lives in it (a registry, a manager, the user's objects).
func removeNamespaceIfEmpty(ctx context.Context, r reporter, member Cluster, cl client.Client) error {
	left, err := namespaceContents(ctx, member.Config, federationv1alpha1.SystemNamespace)
	if err != nil {
		return fmt.Errorf("%s: %w", member.Name, err)
	}
	if len(left) > 0 {
		r.step(member.Name, "kept namespace %s: it still holds %s", federationv1alpha1.SystemNamespace, strings.Join(left, ", "))
		return nil
	}
	removed, err := remove(ctx, cl, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.SystemNamespace}})
	if err != nil {
		return fmt.Errorf("%s: %w", member.Name, err)
	}
	if removed {
		r.step(member.Name, "deleted namespace %s", federationv1alpha1.SystemNamespace)
	}
	return nil
}
