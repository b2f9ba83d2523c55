package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Well-known names of the network model (docs/networks.md).
const (
	// LabelNetwork is the label that names the network (a Network's name)
	// an ExternalEntity's private addresses belong to. The cloud
	// controller's ExternalEntity controller sets it on the entities it
	// writes; an entity without it is in no known network, and a federated
	// policy applied to it uses only public and egress addresses of its
	// remote peers.
	LabelNetwork = "network.antreaplus.io/name"

	// AnnotationAddresses is the annotation of an ExternalEntity that
	// classifies its addresses: a JSON list of EntityAddress. Antrea's
	// ExternalEntity has no field for it; the leader copies it into
	// RemoteEntity.spec.addresses when the entity is exported.
	AnnotationAddresses = "network.antreaplus.io/addresses"

	// ClusterNetworkPrefix prefixes the conventional name of a member's
	// cluster network: "cluster." + its clusterID.
	ClusterNetworkPrefix = "cluster."
)

// NetworkKind is what a network is.
// +kubebuilder:validation:Enum=Cluster;Cloud;Other
type NetworkKind string

const (
	// NetworkCluster is this member cluster's network: its Pod, Service
	// and node ranges. Federated policies applied to Pods are enforced in
	// it. A member has at most one.
	NetworkCluster NetworkKind = "Cluster"
	// NetworkCloud is an AWS VPC or an Azure VNet.
	NetworkCloud NetworkKind = "Cloud"
	// NetworkOther is any other routing domain: a data centre, the far
	// end of a VPN.
	NetworkOther NetworkKind = "Other"
)

// ConnectionVia is how two networks are connected flat.
// +kubebuilder:validation:Enum=Declared;VPCPeering;TransitGateway;VNetPeering;VPN
type ConnectionVia string

const (
	// ViaDeclared: the operator says so; nothing in a cloud shows it.
	ViaDeclared ConnectionVia = "Declared"
	// ViaVPCPeering: an active AWS VPC peering connection (pcx-...).
	ViaVPCPeering ConnectionVia = "VPCPeering"
	// ViaTransitGateway: both VPCs are attached to one AWS transit gateway.
	ViaTransitGateway ConnectionVia = "TransitGateway"
	// ViaVNetPeering: a connected Azure virtual network peering.
	ViaVNetPeering ConnectionVia = "VNetPeering"
	// ViaVPN: a site-to-site VPN or a dedicated line (ExpressRoute,
	// Direct Connect), declared by the operator.
	ViaVPN ConnectionVia = "VPN"
)

// NetworkSpec is one routing domain and the networks it reaches without NAT.
// +kubebuilder:validation:XValidation:rule="self.kind == 'Cloud' ? has(self.cloud) : !has(self.cloud)",message="cloud is set exactly when kind is Cloud: name the VPC or VNet (cloud.provider, cloud.vpcID), or choose kind Cluster or Other"
// +kubebuilder:validation:XValidation:rule="!has(self.flat) || self.flat.all(f, !has(f.cidrs) || f.cidrs.all(c, !isCIDR(c) || self.cidrs.all(o, !isCIDR(o) || (!cidr(o).containsCIDR(cidr(c)) && !cidr(c).containsCIDR(cidr(o))))))",message="a flat connection to a network whose ranges overlap this network's is ambiguous: the same private address would name two hosts; connect such networks through NAT (leave them unconnected) or renumber one of them"
type NetworkSpec struct {
	// kind is Cluster (this member's Pods, Services and nodes), Cloud (a
	// VPC or VNet) or Other.
	// +required
	Kind NetworkKind `json:"kind"`

	// cidrs are the network's private ranges (IPv4 or IPv6), for example
	// an AWS VPC's CIDR blocks or a cluster's Pod and Service CIDRs. An
	// address in one of them means a host of this network only.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="self.all(c, isCIDR(c))",message="every entry of cidrs must be a CIDR such as 10.0.0.0/16 or fd00:10::/64"
	// +kubebuilder:validation:XValidation:rule="self.all(c, !isCIDR(c) || cidr(c).masked() == cidr(c))",message="a CIDR of cidrs has host bits set: write the network address, for example 10.0.0.0/16 instead of 10.0.1.5/16"
	CIDRs []string `json:"cidrs"`

	// cloud names the VPC or VNet of a Cloud network.
	// +optional
	Cloud *CloudNetwork `json:"cloud,omitempty"`

	// flat are the networks connected to this one without NAT: their
	// private addresses arrive here unchanged, and this network's reach
	// them. Nothing is flat unless listed here (by the operator, or by the
	// cloud controller from a peering it discovered). Flat is not
	// transitive: A flat to B and B flat to C does not connect A and C.
	// +optional
	// +listType=map
	// +listMapKey=network
	// +kubebuilder:validation:MaxItems=64
	Flat []FlatConnection `json:"flat,omitempty"`
}

// CloudNetwork identifies a VPC or VNet.
type CloudNetwork struct {
	// provider is AWS or Azure.
	// +required
	// +kubebuilder:validation:Enum=AWS;Azure
	Provider string `json:"provider"`

	// vpcID is the AWS VPC id or the Azure VNet's ARM resource id.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	VPCID string `json:"vpcID"`
}

// FlatConnection is a network reached without NAT.
type FlatConnection struct {
	// network is the connected network's name: a Network of this member,
	// or the name the federation gives a network of another member
	// (aws.<vpc>, azure.<vnet>, cluster.<clusterID>), as its RemoteEntities
	// carry it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="network must be a network's name: a DNS subdomain of at most 63 characters, such as aws.vpc-0a1b2c3d or cluster.member-1"
	Network string `json:"network"`

	// cidrs are the connected network's private ranges. Required when it
	// is not a Network of this member; ignored when it is (that Network's
	// cidrs count).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="self.all(c, isCIDR(c))",message="every entry of cidrs must be a CIDR such as 10.0.0.0/16 or fd00:10::/64"
	CIDRs []string `json:"cidrs,omitempty"`

	// via is how the networks are connected: Declared, VPCPeering,
	// TransitGateway, VNetPeering or VPN.
	// +optional
	// +kubebuilder:default=Declared
	Via ConnectionVia `json:"via,omitempty"`

	// id is the cloud's id of the connection (pcx-..., tgw-attach-..., a
	// peering's ARM id), when there is one.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	ID string `json:"id,omitempty"`
}

// Condition types and reasons of a Network.
const (
	// NetworkConditionValid is True when the network can be used: its
	// flat connections are unambiguous.
	NetworkConditionValid = "Valid"
	// ReasonAmbiguous: two networks reachable flat from this one (or this
	// one and a flat peer) overlap; addresses in the overlap are never put
	// into a rule.
	ReasonAmbiguous = "Ambiguous"
	// ReasonMissingCIDRs: a flat connection names a network this member
	// has no Network for, without its cidrs.
	ReasonMissingCIDRs = "MissingCIDRs"
)

// NetworkStatus says whether the network's declaration is usable.
type NetworkStatus struct {
	// observedGeneration is the metadata.generation this status was
	// computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Valid.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=fnet,categories=antreaplus
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.kind`
// +kubebuilder:printcolumn:name="CIDRs",type=string,JSONPath=`.spec.cidrs`
// +kubebuilder:printcolumn:name="Flat",type=string,JSONPath=`.spec.flat[*].network`
// +kubebuilder:printcolumn:name="Valid",type=string,JSONPath=`.status.conditions[?(@.type=="Valid")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="a Network's name is at most 63 characters: it is also a label value (network.antreaplus.io/name)"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.flat) || self.spec.flat.all(f, f.network != self.metadata.name)",message="a network cannot be flat-connected to itself"

// Network is a routing domain of this member (a VPC or VNet it imports, its
// own cluster, a site) and the networks connected to it without NAT. An
// address means a host only within its network: federated policies use, at
// each enforcement point, only the addresses of a remote peer that point
// really sees (docs/networks.md). The cloud controller writes the Networks
// of the VPCs and VNets it imports; the operator declares the others and
// the flat connections no cloud shows.
type Network struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the network and its flat connections.
	// +required
	Spec NetworkSpec `json:"spec"`

	// status says whether the declaration is usable.
	// +optional
	Status NetworkStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// NetworkList is a list of Networks.
type NetworkList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the networks.
	Items []Network `json:"items"`
}

// AddressKind is what an address of an entity is to other networks.
// +kubebuilder:validation:Enum=Private;Public;Egress
type AddressKind string

const (
	// AddressPrivate is routable only in the entity's network and the
	// networks flat-connected to it.
	AddressPrivate AddressKind = "Private"
	// AddressPublic reaches the entity from any network (a public or
	// elastic IP, a load balancer's public address, a global IPv6
	// address).
	AddressPublic AddressKind = "Public"
	// AddressEgress is a source address the entity's traffic carries when
	// it reaches a network not flat-connected to its own: its subnet's NAT
	// gateway's public IP, or its own public IP. It is not an address of
	// the entity: nothing reaches the entity through it.
	AddressEgress AddressKind = "Egress"
)

// EgressViaPublicIP is EntityAddress.via of an egress address that is the
// entity's own public IP.
const EgressViaPublicIP = "PublicIP"

// EntityAddress is one classified address of an entity.
type EntityAddress struct {
	// ip is an IPv4 or IPv6 address.
	// +required
	// +kubebuilder:validation:MaxLength=45
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="ip must be a valid IPv4 or IPv6 address such as 10.0.0.5"
	IP string `json:"ip"`

	// kind is Private, Public or Egress.
	// +required
	Kind AddressKind `json:"kind"`

	// network is the network of a Private address.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Network string `json:"network,omitempty"`

	// via says what an Egress address is: the NAT gateway's id, or
	// PublicIP (the entity's own public IP).
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Via string `json:"via,omitempty"`
}
