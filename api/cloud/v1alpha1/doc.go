// Package v1alpha1 holds the API types of the cloud.antreaplus.io group.
//
// A tenant admin creates, in their namespace, a CloudProviderAccount (which
// cloud, which regions, and a reference to the Secret holding its credentials)
// and one CloudEntitySelector per account (which VPCs/VNets, VMs and
// cloud-native services to import, and whether each VM is enforced agentless
// or agented). The cloud controller polls the cloud and mirrors what matches
// as VirtualMachine, NetworkInterface and CloudNativeService objects in the
// selector's namespace; the ExternalEntity controller turns those into
// ExternalEntities that Antrea NetworkPolicies select.
//
// # Ownership
//
//   - CloudProviderAccount and CloudEntitySelector: spec written by users,
//     status by the cloud controller.
//   - VirtualMachine, NetworkInterface and CloudNativeService: spec written by
//     the cloud controller only (it mirrors the cloud as last polled, so one
//     change in the cloud is one write), status by the components that act on
//     the object (policy enforcement, VM agent registration).
//
// This package holds types only: no logic and no imports of other project
// packages. Deep-copy functions and CRD manifests are generated from it.
//
// +kubebuilder:object:generate=true
// +groupName=cloud.antreaplus.io
package v1alpha1
