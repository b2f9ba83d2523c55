// Package inventory maps what the cloud holds to the objects the cloud
// controller imports, as pure functions: Desired turns a CloudEntitySelector
// and the snapshots of one poll (provider.Snapshot, one per region) into the
// VirtualMachine, NetworkInterface and CloudNativeService objects of
// api/cloud/v1alpha1, and Diff compares them with the objects imported
// before, giving the creates, updates and deletes to make. Nothing here does
// I/O, so every rule is tested with tables.
//
// # Usage
//
// See ExampleDesired. The caller creates plan.Create (VMs before their
// interfaces, then sets each interface's owner), updates plan.Update and
// deletes plan.Delete; plan.Writes() is 0 when nothing changed.
//
// # Rules
//
//   - A VM is imported if any virtualMachines entry matches it (VPC and VM
//     criteria ANDed; ids case-insensitive), with the enforcement mode of
//     the first entry that does (default Agentless). Terminated VMs are not
//     imported. Each imported VM brings all its network interfaces.
//   - A service is imported if an entry matches its kind (unset: every kind
//     of the account's provider), VPC and own id, name or tags.
//   - Object names: the cloud id when it is a DNS-1123 label (AWS), else a
//     readable name plus a hash of the lowercased id (ObjectName).
//   - Labels: the account and selector labels of api/cloud/v1alpha1,
//     cloud.antreaplus.io/virtual-machine on interfaces, and every cloud tag
//     as tag.cloud.antreaplus.io/<key>=<value>, normalised by TagLabels.
//   - Diff owns only the spec, those labels and a NIC's owner reference;
//     status, other labels and annotations survive an update. Objects of a
//     region whose poll failed are never updated or deleted; objects being
//     deleted are left alone.
package inventory
