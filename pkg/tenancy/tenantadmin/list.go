package tenantadmin

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// listPage is the page size of the lists of List.
const listPage = 500

// List reads the tenants of a cluster: its Namespaces, the claim Leases
// of the controllers' namespace, and what each Namespace holds (accounts,
// VMs and their VPCs, policies), and returns the rows of Rows at now. A
// kind whose CRD the cluster does not serve counts nothing, and claims the
// user may not read are unknown, each with a note; any other failure to
// read is an error.
func List(ctx context.Context, cfg *rest.Config, now time.Time) (*Listing, error) {
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	inv := Inventory{Accounts: map[string]int{}, VMs: map[string][]string{}, Policies: map[string]int{}}
	l := &Listing{}

	var nsList corev1.NamespaceList
	if err := c.List(ctx, &nsList); err != nil {
		return nil, fmt.Errorf("listing Namespaces: %w", err)
	}
	for _, ns := range nsList.Items {
		inv.Namespaces = append(inv.Namespaces, Namespace{Name: ns.Name, Labels: ns.Labels, Terminating: ns.DeletionTimestamp != nil})
	}

	var leases coordinationv1.LeaseList
	err = c.List(ctx, &leases, client.InNamespace(federationv1alpha1.SystemNamespace), client.MatchingLabels{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseClaim})
	switch {
	case apierrors.IsForbidden(err):
		l.Notes = append(l.Notes, fmt.Sprintf("the claim Leases of %s may not be read: OWNER and WARNINGS are unknown (bind the Role %s/%s too)",
			federationv1alpha1.SystemNamespace, federationv1alpha1.SystemNamespace, tenancyv1alpha1.ClusterAdminRole))
	case err != nil:
		return nil, fmt.Errorf("listing the claim Leases of %s: %w", federationv1alpha1.SystemNamespace, err)
	}
	for _, le := range leases.Items {
		inv.Claims = append(inv.Claims, ClaimOf(&le, now))
	}

	if err := countMetadata(ctx, c, cloudv1alpha1.GroupVersion.WithKind("CloudProviderAccountList"), l, func(o *metav1.PartialObjectMetadata) {
		inv.Accounts[o.Namespace]++
	}); err != nil {
		return nil, err
	}
	if err := eachPage(ctx, c, &cloudv1alpha1.VirtualMachineList{}, "VirtualMachines", l, func(list client.ObjectList) {
		for _, vm := range list.(*cloudv1alpha1.VirtualMachineList).Items { //nolint:forcetypeassert // the list given
			inv.VMs[vm.Namespace] = append(inv.VMs[vm.Namespace], vm.Spec.VPCID)
		}
	}); err != nil {
		return nil, err
	}
	if err := countMetadata(ctx, c, antreav1beta1.GroupVersion.WithKind("NetworkPolicyList"), l, func(o *metav1.PartialObjectMetadata) {
		if o.Labels[policyv1alpha1.LabelFederatedPolicy] == "" { // counted as its federated policy
			inv.Policies[o.Namespace]++
		}
	}); err != nil {
		return nil, err
	}
	if err := countMetadata(ctx, c, policyv1alpha1.GroupVersion.WithKind("FederatedNetworkPolicyList"), l, func(o *metav1.PartialObjectMetadata) {
		inv.Policies[o.Namespace]++
	}); err != nil {
		return nil, err
	}
	l.Tenants = Rows(inv, now)
	return l, nil
}

// ClaimOf is what the listing needs of a claim Lease at now: its
// contenders are those of the last two lease durations, as the owner
// counts them.
func ClaimOf(le *coordinationv1.Lease, now time.Time) Claim {
	c := Claim{Tenant: le.Labels[tenancyv1alpha1.LabelTenant]}
	if c.Tenant == "" {
		c.Tenant = tenantOfLeaseName(le.Name)
	}
	if le.Spec.HolderIdentity != nil {
		c.Holder = *le.Spec.HolderIdentity
	}
	if le.Spec.RenewTime != nil {
		c.Renew = le.Spec.RenewTime.Time
	}
	if le.Spec.LeaseDurationSeconds != nil {
		c.Duration = time.Duration(*le.Spec.LeaseDurationSeconds) * time.Second
	}
	holder, _ := tenancy.SplitHolder(c.Holder)
	c.Contenders = tenancy.Contenders(le.Annotations, holder, tenancy.ContenderWindow(c.Duration), now)
	return c
}

// tenantOfLeaseName is the tenant of a claim named by ClaimLeaseName.
func tenantOfLeaseName(name string) string {
	const prefix = len("tenant-")
	if len(name) > prefix && tenancyv1alpha1.ClaimLeaseName(name[prefix:]) == name {
		return name[prefix:]
	}
	return name
}

// countMetadata lists the objects of a kind (as metadata only), page by
// page, and calls each for every one.
func countMetadata(ctx context.Context, c client.Client, listKind schema.GroupVersionKind, l *Listing, each func(*metav1.PartialObjectMetadata)) error {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(listKind)
	kind := listKind.Kind[:len(listKind.Kind)-len("List")] + "s"
	return eachPage(ctx, c, list, kind, l, func(page client.ObjectList) {
		for i := range page.(*metav1.PartialObjectMetadataList).Items { //nolint:forcetypeassert // the list given
			each(&page.(*metav1.PartialObjectMetadataList).Items[i]) //nolint:forcetypeassert // the list given
		}
	})
}

// eachPage lists every object of list's kind in every Namespace, page by
// page, calling each on every page. A kind the cluster does not serve is
// a note of l.
func eachPage(ctx context.Context, c client.Client, list client.ObjectList, kind string, l *Listing, each func(client.ObjectList)) error {
	cont := ""
	for {
		err := c.List(ctx, list, client.Limit(listPage), client.Continue(cont))
		if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) { // a list is not found when its kind is not served
			l.Notes = append(l.Notes, kind+": not served by the cluster (CRD not installed), counted as none")
			return nil
		}
		if err != nil {
			return fmt.Errorf("listing %s: %w", kind, err)
		}
		each(list)
		if cont = list.GetContinue(); cont == "" {
			return nil
		}
	}
}
