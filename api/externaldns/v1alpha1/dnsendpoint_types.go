package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Record types of an Endpoint, as ExternalDNS names them.
const (
	// RecordTypeA is an IPv4 address record.
	RecordTypeA = "A"
	// RecordTypeAAAA is an IPv6 address record.
	RecordTypeAAAA = "AAAA"
	// RecordTypeCNAME is an alias record.
	RecordTypeCNAME = "CNAME"
	// RecordTypeSRV is a service record; each target is
	// "<priority> <weight> <port> <host>." (the host ends with a dot).
	RecordTypeSRV = "SRV"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dnsendpoints,scope=Namespaced
// +kubebuilder:subresource:status

// DNSEndpoint is a set of DNS records that ExternalDNS's CRD source
// (--source=crd) publishes to a DNS provider.
type DNSEndpoint struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the records to publish.
	// +optional
	Spec DNSEndpointSpec `json:"spec,omitempty"`

	// status is written by ExternalDNS.
	// +optional
	Status DNSEndpointStatus `json:"status,omitempty"`
}

// DNSEndpointSpec is the records of a DNSEndpoint.
type DNSEndpointSpec struct {
	// endpoints is the list of DNS records this resource declares.
	// +optional
	Endpoints []*Endpoint `json:"endpoints,omitempty"`
}

// DNSEndpointStatus is what ExternalDNS observed of a DNSEndpoint.
type DNSEndpointStatus struct {
	// observedGeneration is the generation ExternalDNS last processed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// Endpoint is one DNS record set: a name, a type and its targets
// (ExternalDNS's endpoint.Endpoint).
type Endpoint struct {
	// dnsName is the record's name, without a trailing dot.
	DNSName string `json:"dnsName,omitempty"`
	// targets are the record's values: addresses (A, AAAA), a host name
	// (CNAME) or "<priority> <weight> <port> <host>." (SRV).
	Targets []string `json:"targets,omitempty"`
	// recordType is A, AAAA, CNAME, SRV, TXT, ...
	RecordType string `json:"recordType,omitempty"`
	// setIdentifier distinguishes records of the same name and type (for
	// providers' routing policies).
	SetIdentifier string `json:"setIdentifier,omitempty"`
	// recordTTL is the record's TTL in seconds (the provider's default when 0).
	RecordTTL int64 `json:"recordTTL,omitempty"`
	// labels are ExternalDNS's labels of the record (owner, resource).
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// providerSpecific holds provider-specific settings of the record.
	// +optional
	ProviderSpecific []ProviderSpecificProperty `json:"providerSpecific,omitempty"`
}

// ProviderSpecificProperty is one provider-specific setting of an Endpoint.
type ProviderSpecificProperty struct {
	// name is the setting's name.
	Name string `json:"name,omitempty"`
	// value is the setting's value.
	Value string `json:"value,omitempty"`
}

// +kubebuilder:object:root=true

// DNSEndpointList is a list of DNSEndpoints.
type DNSEndpointList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DNSEndpoints.
	Items []DNSEndpoint `json:"items"`
}
