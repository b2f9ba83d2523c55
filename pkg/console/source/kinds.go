package source

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// Kind is one kind the console watches in every member.
type Kind struct {
	// Name is its plural, as the views name it ("ServiceExports").
	Name string
	// Resource and Group are what kubectl calls it.
	Resource, Group string
	// Namespace limits the watch to one Namespace ("" every one).
	Namespace string
	// Labels limits the watch to objects with these labels.
	Labels  map[string]string
	newObj  func() client.Object
	newList func() client.ObjectList
}

// The kinds of the views.
const (
	Memberships            = "ClusterMemberships"
	Registry               = "MemberClusters"
	Leases                 = "Leases"
	Nodes                  = "Nodes"
	Namespaces             = "Namespaces"
	ServiceExports         = "ServiceExports"
	Services               = "Services"
	EndpointSlices         = "EndpointSlices"
	ServiceImports         = "ServiceImports"
	DNSEndpoints           = "DNSEndpoints"
	FederatedPolicies      = "FederatedNetworkPolicies"
	NetworkPolicies        = "NetworkPolicies"
	ClusterNetworkPolicies = "ClusterNetworkPolicies"
	Accounts               = "CloudProviderAccounts"
	Selectors              = "CloudEntitySelectors"
	VirtualMachines        = "VirtualMachines"
	CloudServices          = "CloudNativeServices"
	Networks               = "Networks"
)

func kind[T any, PT interface {
	*T
	client.Object
}, L any, PL interface {
	*L
	client.ObjectList
}](name, resource, group string) Kind {
	return Kind{Name: name, Resource: resource, Group: group,
		newObj: func() client.Object { return PT(new(T)) }, newList: func() client.ObjectList { return PL(new(L)) }}
}

// Kinds are every kind the console's views show.
func Kinds() []Kind {
	leases := kind[coordinationv1.Lease, *coordinationv1.Lease, coordinationv1.LeaseList, *coordinationv1.LeaseList](Leases, "leases", "coordination.k8s.io")
	// The federation's Leases (leader, managers' heartbeats, tenants'
	// claims): never the whole cluster's.
	leases.Namespace = federationv1alpha1.SystemNamespace
	registry := kind[federationv1alpha1.MemberCluster, *federationv1alpha1.MemberCluster, federationv1alpha1.MemberClusterList, *federationv1alpha1.MemberClusterList](Registry, "memberclusters", federationv1alpha1.GroupVersion.Group)
	registry.Namespace = federationv1alpha1.SystemNamespace
	return []Kind{
		kind[federationv1alpha1.ClusterMembership, *federationv1alpha1.ClusterMembership, federationv1alpha1.ClusterMembershipList, *federationv1alpha1.ClusterMembershipList](Memberships, "clustermemberships", federationv1alpha1.GroupVersion.Group),
		registry, leases,
		kind[corev1.Node, *corev1.Node, corev1.NodeList, *corev1.NodeList](Nodes, "nodes", ""),
		kind[corev1.Namespace, *corev1.Namespace, corev1.NamespaceList, *corev1.NamespaceList](Namespaces, "namespaces", ""),
		kind[mcsv1beta1.ServiceExport, *mcsv1beta1.ServiceExport, mcsv1beta1.ServiceExportList, *mcsv1beta1.ServiceExportList](ServiceExports, "serviceexports", mcsv1beta1.GroupVersion.Group),
		kind[corev1.Service, *corev1.Service, corev1.ServiceList, *corev1.ServiceList](Services, "services", ""),
		kind[discoveryv1.EndpointSlice, *discoveryv1.EndpointSlice, discoveryv1.EndpointSliceList, *discoveryv1.EndpointSliceList](EndpointSlices, "endpointslices", discoveryv1.GroupName),
		kind[mcsv1beta1.ServiceImport, *mcsv1beta1.ServiceImport, mcsv1beta1.ServiceImportList, *mcsv1beta1.ServiceImportList](ServiceImports, "serviceimports", mcsv1beta1.GroupVersion.Group),
		kind[externaldnsv1alpha1.DNSEndpoint, *externaldnsv1alpha1.DNSEndpoint, externaldnsv1alpha1.DNSEndpointList, *externaldnsv1alpha1.DNSEndpointList](DNSEndpoints, "dnsendpoints", externaldnsv1alpha1.GroupVersion.Group),
		kind[policyv1alpha1.FederatedNetworkPolicy, *policyv1alpha1.FederatedNetworkPolicy, policyv1alpha1.FederatedNetworkPolicyList, *policyv1alpha1.FederatedNetworkPolicyList](FederatedPolicies, "federatednetworkpolicies", policyv1alpha1.GroupVersion.Group),
		kind[antreav1beta1.NetworkPolicy, *antreav1beta1.NetworkPolicy, antreav1beta1.NetworkPolicyList, *antreav1beta1.NetworkPolicyList](NetworkPolicies, "networkpolicies", antreav1beta1.GroupVersion.Group),
		kind[antreav1beta1.ClusterNetworkPolicy, *antreav1beta1.ClusterNetworkPolicy, antreav1beta1.ClusterNetworkPolicyList, *antreav1beta1.ClusterNetworkPolicyList](ClusterNetworkPolicies, "clusternetworkpolicies", antreav1beta1.GroupVersion.Group),
		kind[cloudv1alpha1.CloudProviderAccount, *cloudv1alpha1.CloudProviderAccount, cloudv1alpha1.CloudProviderAccountList, *cloudv1alpha1.CloudProviderAccountList](Accounts, "cloudprovideraccounts", cloudv1alpha1.GroupVersion.Group),
		kind[cloudv1alpha1.CloudEntitySelector, *cloudv1alpha1.CloudEntitySelector, cloudv1alpha1.CloudEntitySelectorList, *cloudv1alpha1.CloudEntitySelectorList](Selectors, "cloudentityselectors", cloudv1alpha1.GroupVersion.Group),
		kind[cloudv1alpha1.VirtualMachine, *cloudv1alpha1.VirtualMachine, cloudv1alpha1.VirtualMachineList, *cloudv1alpha1.VirtualMachineList](VirtualMachines, "virtualmachines", cloudv1alpha1.GroupVersion.Group),
		kind[cloudv1alpha1.CloudNativeService, *cloudv1alpha1.CloudNativeService, cloudv1alpha1.CloudNativeServiceList, *cloudv1alpha1.CloudNativeServiceList](CloudServices, "cloudnativeservices", cloudv1alpha1.GroupVersion.Group),
		kind[federationv1alpha1.Network, *federationv1alpha1.Network, federationv1alpha1.NetworkList, *federationv1alpha1.NetworkList](Networks, "networks", federationv1alpha1.GroupVersion.Group),
	}
}
