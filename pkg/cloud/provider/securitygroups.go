package provider

import "errors"

// ErrNotSupported: the provider cannot do this (yet).
var ErrNotSupported = errors.New("not supported by this provider")

// SecurityGroupSpec is what the managed security groups of one VPC must be
// for agentless enforcement: the groups with their allow rules, and which
// of them each network interface carries. Only groups whose name starts
// with Prefix are ever changed or deleted; a network interface keeps the
// groups that are not managed.
type SecurityGroupSpec struct {
	// VPCID is the VPC (AWS) or VNet (Azure) the groups belong to.
	VPCID string
	// Prefix marks managed groups, e.g. "antreaplus-". Required.
	Prefix string
	// Groups are every managed group the VPC must hold; managed groups not
	// listed are deleted. Names start with Prefix.
	Groups []SecurityGroup
	// Attachments are, per network interface id, the names of the managed
	// groups it must carry. Interfaces of the VPC not listed lose every
	// managed group. Interfaces a cloud service created for itself
	// (requester-managed: a database's, a load balancer's) carry their
	// service's groups and are never changed through this list.
	Attachments map[string][]string
	// Services are, per cloud-native service id of the VPC (an RDS DB
	// instance's or cluster's ARN, an ELBv2 load balancer's ARN), the
	// names of the managed groups the service must carry beside the
	// groups the operator gave it, which are kept. Services of the VPC
	// not listed lose every managed group. A provider that cannot put
	// groups on a kind of service reports it Unrealized.
	Services map[string][]string
}

// SecurityGroup is a managed security group: allow rules only.
type SecurityGroup struct {
	// Name, unique in the VPC, starting with the spec's Prefix.
	Name string
	// Description; a default is used when empty.
	Description string
	// Ingress and Egress are the allowed flows; everything else is denied.
	Ingress []Rule
	Egress  []Rule
}

// Rule allows one protocol and port range from (ingress) or to (egress) one
// peer: a CIDR or another managed group of the same spec.
type Rule struct {
	// Protocol is tcp, udp, icmp, icmpv6 or all.
	Protocol string
	// FromPort and ToPort bound the port range (for ICMP: type and code,
	// -1 for any); ignored for all.
	FromPort int32
	ToPort   int32
	// CIDR is an IPv4 or IPv6 peer range, or
	CIDR string
	// Group is the name of a managed group of the spec whose members are
	// the peers.
	Group string
}

// SyncResult is what a sync did and what it could not do.
type SyncResult struct {
	// Writes is the number of mutating API calls made.
	Writes int
	// Created and Deleted are the names of groups created and deleted.
	Created, Deleted []string
	// RulesAdded and RulesRemoved count rules (one per peer).
	RulesAdded, RulesRemoved int
	// InterfacesChanged counts network interfaces whose groups changed.
	InterfacesChanged int
	// ServicesChanged counts cloud-native services whose groups changed.
	ServicesChanged int
	// Unrealized lists what the cloud cannot hold (quotas, unknown
	// references); those parts were left as they were.
	Unrealized []Unrealized
}

// Reasons of Unrealized parts a caller may tell apart.
const (
	// UnrealizedQuota: a quota of the cloud (rules per group, groups per
	// interface or service).
	UnrealizedQuota = "QuotaExceeded"
	// UnrealizedNoSecurityGroups: the service cannot carry security groups
	// (a Network Load Balancer created without any).
	UnrealizedNoSecurityGroups = "NoSecurityGroups"
	// UnrealizedNotFound: the interface or service is not in the VPC (any
	// more).
	UnrealizedNotFound = "NotFound"
	// UnrealizedClusterMember: a DB instance whose groups are its DB
	// cluster's.
	UnrealizedClusterMember = "ClusterMember"
)

// Unrealized is one part of a spec the cloud cannot hold, and why.
type Unrealized struct {
	// Object is the group name, network interface id or service id
	// concerned.
	Object string
	// Code classifies Reason where a caller may act on it (one of the
	// Unrealized* constants); empty for any other refusal.
	Code string
	// Reason says why, e.g. "61 ingress rules exceed the quota of 60".
	Reason string
}
