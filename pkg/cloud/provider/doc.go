// Package provider defines the one interface a cloud provider plugin
// implements for the cloud controller, and its plain Go types: a Snapshot
// of one region's VPCs, VMs (with their network interfaces) and cloud-native
// services, which Inventory reads; and a SecurityGroupSpec, the managed
// security groups of one VPC for agentless enforcement, which
// SyncSecurityGroups makes the cloud hold.
//
// The types here are deliberately not the Kubernetes API types: a plugin
// knows its cloud, not the cluster. Package inventory maps snapshots to the
// VirtualMachine, NetworkInterface and CloudNativeService objects of
// api/cloud/v1alpha1.
//
// There is no registry. Each provider lives in its own package (aws, azure)
// with its own Options and constructor, and the cloud controller wires the
// one an account names explicitly.
//
// # Usage
//
// See ExampleProvider (a poll and its failure reasons) and
// ExampleProvider_syncSecurityGroups.
//
// # Errors
//
// Plugins wrap the cloud's error with one of ErrAuthentication,
// ErrRegionUnavailable or ErrThrottled when it is one of those, so the
// controller can set the account's condition reason; the cloud's own message
// stays in the error text. Plugins never put credentials in errors.
package provider
