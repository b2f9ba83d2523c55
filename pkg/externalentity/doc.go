// Package externalentity is the ExternalEntity controller: it keeps one
// Antrea ExternalEntity (crd.antrea.io/v1alpha2) per imported
// NetworkInterface and per CloudNativeService, so that Antrea-native
// NetworkPolicies can select cloud VMs and services with
// externalEntitySelector, as peers or, for agented VMs, as what they apply
// to.
//
// # Usage
//
// See ExampleSetupWithManager and ExampleForNetworkInterface.
//
// # What an ExternalEntity holds
//
//   - Name: "nic-<interface>" or "svc-<service>", in the source's namespace,
//     with the source as controlling owner (deleted with it by the garbage
//     collector, and by this controller when it sees the source gone).
//   - Endpoints: the private, then the public IPs of the interface or
//     service. Ports: a service's listeners, where the cloud reports them.
//   - externalNode: the VirtualMachine's name for agented VMs (its agent
//     enforces the policies), Options.AgentlessNode for agentless VMs and
//     services (the cloud controller realises them as security groups).
//   - Labels, all under cloud.antreaplus.io/: kind (VirtualMachine or
//     CloudNativeService), name (the VM or service object), namespace, vpc
//     (the AWS VPC id; for Azure the VNet name and a hash of its id, as
//     inventory.ObjectName makes it), region, network-interface or
//     service-kind, the account and selector
//     labels of the source; and every cloud tag as
//     tag.cloud.antreaplus.io/<key>=<value>, normalised by
//     inventory.TagLabels (an interface carries its VM's tags, its own
//     winning a clash).
//
// Only those labels are managed: labels others add under different
// prefixes survive. An ExternalEntity is written only when it differs from
// what it should be, so an unchanged inventory causes no writes.
package externalentity
