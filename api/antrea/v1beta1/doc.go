// Package v1beta1 holds AntreaPlus's copy of Antrea's crd.antrea.io/v1beta1
// policy API: NetworkPolicy (Antrea NetworkPolicy, namespaced),
// ClusterNetworkPolicy, Group, ClusterGroup and Tier.
//
// The types are wire-compatible with the API that Antrea publishes: same group,
// version, kinds, scopes, short names and JSON field names, with the same
// meaning. An object written by Antrea's own clients decodes into these types
// and back without loss, so AntreaPlus controllers and Antrea can share one
// cluster's objects.
//
// Where Antrea checks an object in its admission webhook, the CRD generated
// from this package checks what can be checked without looking at other
// objects, with CEL rules, so that the API server rejects a malformed policy
// with a message that says what is wrong. Checks that need other objects (a
// referenced Tier or ClusterGroup exists, two Tiers do not share a priority)
// are left to controllers.
//
// +kubebuilder:object:generate=true
// +groupName=crd.antrea.io
package v1beta1
