// Package v1alpha2 holds AntreaPlus's copy of Antrea's crd.antrea.io/v1alpha2
// ExternalEntity API: a non-Pod workload (a VM's network interface, a cloud
// service with a routable IP) that Antrea-native policies select with
// externalEntitySelector.
//
// The types are wire-compatible with the API that Antrea publishes: same group,
// version, kind, scope, short name and JSON field names. The AntreaPlus
// ExternalEntity controller writes these objects for the cloud resources it
// imports.
//
// +kubebuilder:object:generate=true
// +groupName=crd.antrea.io
package v1alpha2
