// Package v1alpha1 holds the federated policy API of AntreaPlus:
// FederatedNetworkPolicy, an Antrea NetworkPolicy whose rules may name what
// other members of the federation export (remote VMs and cloud-native
// services, federated Services), never remote Pods. Its spec is Antrea's
// NetworkPolicy spec, field for field; the kind itself is what marks a
// policy federated, and peers reach other members with Antrea
// Multi-cluster's scope: ClusterSet.
//
// +kubebuilder:object:generate=true
// +groupName=policy.antreaplus.io
package v1alpha1
