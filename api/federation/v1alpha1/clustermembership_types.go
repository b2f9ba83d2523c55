package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// ClusterIDProperty is the KEP-2149 well-known name of a cluster's ID
	// within its cluster set; ClusterMembership.spec.clusterID carries it.
	ClusterIDProperty = "cluster.clusterset.k8s.io"
	// ClusterSetProperty is the KEP-2149 well-known name of the cluster set a
	// cluster belongs to; ClusterMembership.spec.federationID carries it.
	ClusterSetProperty = "clusterset.k8s.io"

	// MembershipName is the only name a ClusterMembership may have: a cluster
	// has one identity.
	MembershipName = ClusterIDProperty
)

// ClusterMembershipSpec is a cluster's identity and its place in a federation.
type ClusterMembershipSpec struct {
	// clusterID identifies this cluster uniquely within its federation
	// (KEP-2149 cluster.clusterset.k8s.io). It is a DNS subdomain of at most
	// 128 characters and cannot change while the cluster is a member.
	// +required
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="size(self) > 0",message="clusterID must not be empty: set it to an ID unique within the federation, e.g. 'us-west-1'"
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="clusterID must be a DNS subdomain: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="clusterID cannot change while the cluster is a member: run 'antreaplus federation leave' first, then join again with the new ID"
	ClusterID string `json:"clusterID"`

	// federationID names the federation this cluster belongs to (KEP-2149
	// clusterset.k8s.io). A cluster belongs to at most one federation, so it
	// cannot change while the cluster is a member.
	// +required
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="size(self) > 0",message="federationID must not be empty"
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="federationID must be a DNS subdomain: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="this cluster already belongs to another federation: a cluster cannot join two federations; run 'antreaplus federation leave' first"
	FederationID string `json:"federationID"`

	// supervisor is true when this cluster runs a federation manager and
	// takes part in the leader election of every member.
	// +optional
	Supervisor bool `json:"supervisor,omitempty"`

	// externalDNS publishes the federation's Services to clients outside
	// the members from this cluster: its leader writes an ExternalDNS
	// DNSEndpoint (externaldns.k8s.io/v1alpha1) into antreaplus-system for
	// every federated Service exported through a load balancer or node
	// ports, for an ExternalDNS running here to publish. Unset, nothing is
	// written, and what was written is removed.
	// +optional
	ExternalDNS *ExternalDNSSpec `json:"externalDNS,omitempty"`

	// imports says what this member refuses to import (bottom-up: an
	// exporter decides where its exports may go, each member what it
	// takes). Unset, it imports whatever is exported to it.
	// +optional
	Imports *ImportsSpec `json:"imports,omitempty"`
}

// ImportsSpec is what a member refuses to import: every export (Services
// and ExternalEntities) of the members named or selected. A member named in
// both is refused once; the member itself is never refused.
type ImportsSpec struct {
	// refuseFrom lists the ClusterIDs whose exports this member never imports.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1024
	// +kubebuilder:validation:items:MaxLength=128
	RefuseFrom []string `json:"refuseFrom,omitempty"`

	// refuseFromSelector refuses the exports of the members whose registry
	// labels (antreaplus federation join --label) it selects.
	// +optional
	RefuseFromSelector *metav1.LabelSelector `json:"refuseFromSelector,omitempty"`
}

// ExternalDNSSpec says under which domain, and with which TTL, a cluster
// publishes the federation's names through ExternalDNS.
type ExternalDNSSpec struct {
	// domain the names are published under:
	// <service>.<namespace>.<federationID>.svc[.<zone>].<region>.<domain>
	// and <service>.<namespace>.<federationID>.svc.<domain>. A DNS
	// subdomain; changing it moves every record to the new domain.
	// +required
	// +kubebuilder:validation:MaxLength=200
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="domain must be a DNS subdomain in lower case, without a trailing dot, e.g. 'example.com'"
	Domain string `json:"domain"`

	// recordTTL is the TTL, in seconds, of every record written; 30 when
	// unset. A withdrawn exporter leaves resolvers' caches within it.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	RecordTTL int64 `json:"recordTTL,omitempty"`
}

// ClusterMembershipStatus is what the federation observed of this member.
type ClusterMembershipStatus struct {
	// leader is the clusterID of the supervisor whose federation manager
	// currently leads this member, empty when none does.
	// +optional
	Leader string `json:"leader,omitempty"`

	// leaderTerm is the leader Lease's leaseTransitions when the leader
	// wrote this status. It only grows: a write with a smaller term would
	// come from a deposed leader.
	// +optional
	LeaderTerm int32 `json:"leaderTerm,omitempty"`

	// joinTime is when the cluster joined its federation.
	// +optional
	JoinTime *metav1.Time `json:"joinTime,omitempty"`

	// conditions describe the membership, e.g. Joined and Led.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// withheld are the other members' exports that do not reach this
	// member (their scope leaves it out, or this member refuses their
	// member), as this member's leader decides its imports: named here,
	// never imported (no address, no label of theirs). Federated policies
	// report them ("not exported to this member").
	// +optional
	Withheld *WithheldExports `json:"withheld,omitempty"`
}

// WithheldExports are the exports held back from a member, by kind; each
// kind is written by the leader controller that imports it.
type WithheldExports struct {
	// services are withheld ServiceExports, named by the federated Service
	// they give (the one they join, when they join one).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	Services []WithheldExport `json:"services,omitempty"`

	// moreServices counts the withheld ServiceExports not listed.
	// +optional
	MoreServices int32 `json:"moreServices,omitempty"`

	// entities are withheld EntityExports.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	Entities []WithheldExport `json:"entities,omitempty"`

	// moreEntities counts the withheld EntityExports not listed.
	// +optional
	MoreEntities int32 `json:"moreEntities,omitempty"`
}

// WithheldExport is one export that does not reach a member.
type WithheldExport struct {
	// cluster is the exporting member.
	// +required
	// +kubebuilder:validation:MaxLength=128
	Cluster string `json:"cluster"`

	// namespace is the export's Namespace (for a ServiceExport, the
	// federated Service's).
	// +required
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`

	// name is the export's name (for a ServiceExport, the federated
	// Service's).
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// reason is NotInScope (the exporter's scope leaves this member out)
	// or Refused (this member's spec.imports refuses the exporter).
	// +required
	// +kubebuilder:validation:Enum=NotInScope;Refused
	Reason string `json:"reason"`
}

// ClusterMembership is a cluster's own identity and federation membership.
// There is one per cluster, named cluster.clusterset.k8s.io.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=cm;membership,categories=antreaplus
// +kubebuilder:printcolumn:name="Cluster ID",type=string,JSONPath=`.spec.clusterID`
// +kubebuilder:printcolumn:name="Federation",type=string,JSONPath=`.spec.federationID`
// +kubebuilder:printcolumn:name="Supervisor",type=boolean,JSONPath=`.spec.supervisor`
// +kubebuilder:printcolumn:name="Leader",type=string,JSONPath=`.status.leader`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'cluster.clusterset.k8s.io'",message="a cluster has one membership and it must be named cluster.clusterset.k8s.io"
type ClusterMembership struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ClusterMembershipSpec `json:"spec"`
	// +optional
	Status ClusterMembershipStatus `json:"status,omitempty"`
}

// ClusterMembershipList is a list of ClusterMembership.
//
// +kubebuilder:object:root=true
type ClusterMembershipList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterMembership `json:"items"`
}
