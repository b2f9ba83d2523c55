// Package v1alpha1 holds AntreaPlus's copy of ExternalDNS's
// externaldns.k8s.io/v1alpha1 DNSEndpoint API (sigs.k8s.io/external-dns,
// apis/v1alpha1 and endpoint.Endpoint, as released in v0.20-v0.23): the
// records a federation publishes through ExternalDNS's CRD source
// (docs/external-dns.md).
//
// The types are wire-compatible with the API that ExternalDNS publishes: same
// group, version, kind, scope and JSON field names. Only the fields AntreaPlus
// writes or reads are typed; ExternalDNS's unreleased status fields
// (status.endpoints, status.conditions) are not.
//
// No CRD is generated from this package (+kubebuilder:skip): the
// dnsendpoints.externaldns.k8s.io CRD belongs to ExternalDNS and is installed
// with it; a copy in AntreaPlus's chart would collide with ExternalDNS's own.
// Deepcopy functions are generated.
//
// +kubebuilder:skip
// +kubebuilder:object:generate=true
// +groupName=externaldns.k8s.io
package v1alpha1
