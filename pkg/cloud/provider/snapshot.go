package provider

import (
	"slices"
	"strings"
)

// Cloud names a provider's cloud.
type Cloud string

const (
	// AWS is Amazon Web Services.
	AWS Cloud = "AWS"
	// Azure is Microsoft Azure.
	Azure Cloud = "Azure"
)

// Snapshot is what one region of one account held when it was read.
// Slices are sorted by ID.
type Snapshot struct {
	// Cloud the snapshot was read from.
	Cloud Cloud
	// Region that was read, e.g. us-east-1 or eastus.
	Region string
	// VPCs are the AWS VPCs or Azure VNets.
	VPCs []VPC
	// VMs are the virtual machines, with their network interfaces.
	VMs []VM
	// Services are the cloud-native services with addresses in a VPC.
	Services []Service
	// Failed are the kinds of service the provider could not read: the
	// snapshot holds none of them, and what was imported of them before
	// is to be kept. The VMs and VPCs are never partial: when they cannot
	// be read, Inventory fails.
	Failed []KindFailure
}

// KindFailure is a kind of service a poll could not read, and why.
type KindFailure struct {
	// Kinds are the service kinds the failed reads would have returned.
	Kinds []ServiceKind
	// Err is the classified error (errors.Is ErrAuthentication, ...).
	Err error
}

// FailedKind reports whether the snapshot could not read kind.
func (s *Snapshot) FailedKind(kind ServiceKind) bool {
	return slices.ContainsFunc(s.Failed, func(f KindFailure) bool { return slices.Contains(f.Kinds, kind) })
}

// VPC is an AWS VPC or an Azure VNet.
type VPC struct {
	// Peerings are the VPC's active flat connections to other VPCs
	// (VNets): AWS VPC peering connections and transit gateway
	// attachments, Azure VNet peerings in the Connected state.
	Peerings []Peering

	// ID is the VPC id (AWS) or the VNet's ARM resource id (Azure).
	ID string
	// Name is the Name tag (AWS) or the resource name (Azure).
	Name string
	// CIDRs are the address ranges of the VPC.
	CIDRs []string
	// Tags are the VPC's cloud tags.
	Tags map[string]string
}

// VMState is a VM's lifecycle state, normalised across clouds.
type VMState string

// VM states. They match the VirtualMachineState values of the API.
const (
	VMPending      VMState = "Pending"
	VMRunning      VMState = "Running"
	VMStopping     VMState = "Stopping"
	VMStopped      VMState = "Stopped"
	VMShuttingDown VMState = "ShuttingDown"
	VMTerminated   VMState = "Terminated"
	VMUnknown      VMState = "Unknown"
)

// VM is a virtual machine.
type VM struct {
	// ID is the instance id (AWS) or the ARM resource id (Azure).
	ID string
	// Name is the Name tag (AWS) or the VM name (Azure). Not unique.
	Name string
	// Zone is the availability zone, if any.
	Zone string
	// VPCID is the VPC/VNet of the primary network interface.
	VPCID string
	// InstanceType is the machine size, e.g. t3.micro or Standard_B1s.
	InstanceType string
	// State is the lifecycle state.
	State VMState
	// Tags are the VM's cloud tags.
	Tags map[string]string
	// NICs are the VM's network interfaces, primary first.
	NICs []NIC
}

// NIC is a network interface attached to a VM.
type NIC struct {
	// EgressIPs are the addresses its traffic leaves with toward other
	// networks: its subnet's NAT gateway's public IPs (NATGatewayID), else
	// its own public IPs when its subnet routes to the internet.
	EgressIPs    []string
	NATGatewayID string

	// ID is the ENI id (AWS) or the ARM resource id (Azure).
	ID string
	// Primary is true for the VM's primary interface.
	Primary bool
	// VPCID is the VPC/VNet the interface is in.
	VPCID string
	// SubnetID is the subnet the interface is in.
	SubnetID string
	// MAC is the MAC address, lowercase and colon-separated.
	MAC string
	// PrivateIPs are the private IPv4 and IPv6 addresses, primary first.
	PrivateIPs []string
	// PublicIPs are the public addresses associated with the interface.
	PublicIPs []string
	// SecurityGroupIDs are the AWS security groups, or on Azure the NSG and
	// application security groups of the interface.
	SecurityGroupIDs []string
	// Tags are the interface's own cloud tags.
	Tags map[string]string
}

// ServiceKind is a kind of cloud-native service. The values match the
// CloudNativeServiceKind values of the API.
// Peering is a flat connection of a VPC (VNet) to another.
type Peering struct {
	// ID is the connection's id (pcx-..., tgw-attach-..., a peering's ARM id).
	ID string
	// Via is VPCPeering, TransitGateway or VNetPeering.
	Via string
	// PeerVPCID is the other VPC's (VNet's) id, PeerCIDRs its ranges.
	PeerVPCID string
	PeerCIDRs []string
}

type ServiceKind string

// Service kinds.
const (
	AWSLoadBalancer   ServiceKind = "AWSLoadBalancer"
	AWSRDS            ServiceKind = "AWSRDS"
	AzureLoadBalancer ServiceKind = "AzureLoadBalancer"
	AzureSQL          ServiceKind = "AzureSQL"
)

// Service is a cloud-native service (load balancer, managed database) with
// addresses in a VPC.
type Service struct {
	// ID is the ARN (AWS) or the ARM resource id (Azure).
	ID string
	// Name is the service's name.
	Name string
	// Kind of service.
	Kind ServiceKind
	// VPCID is the VPC/VNet the service is reachable in.
	VPCID string
	// DNSName is the DNS name the cloud gives the service, if any.
	DNSName string
	// PrivateIPs are the addresses inside the VPC.
	PrivateIPs []string
	// PublicIPs are the public addresses, if any.
	PublicIPs []string
	// Ports are the ports the service listens on, where known.
	Ports []Port
	// SecurityGroupIDs are the security groups attached to the service.
	SecurityGroupIDs []string
	// BackendInterfaces are the ids of the network interfaces a load
	// balancer sends its traffic to (an Azure load balancer's backend
	// pool members), BackendPorts the ports they receive it on.
	BackendInterfaces []string
	BackendPorts      []Port
	// Tags are the service's cloud tags.
	Tags map[string]string
}

// Port is a port a service listens on.
type Port struct {
	// Name of the port (e.g. a listener name), if any.
	Name string
	// Protocol is TCP, UDP or SCTP.
	Protocol string
	// Port number.
	Port int32
}

// Sort puts the snapshot's slices in the documented order: VPCs, VMs and
// services by ID. A VM's NICs keep their order (primary first); every other
// list of strings is left as the cloud returned it.
func (s *Snapshot) Sort() {
	slices.SortFunc(s.VPCs, func(a, b VPC) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(s.VMs, func(a, b VM) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Services, func(a, b Service) int { return strings.Compare(a.ID, b.ID) })
}

// VM returns the VM with the given ID, if the snapshot has it.
func (s *Snapshot) VM(id string) (VM, bool) {
	i, ok := slices.BinarySearchFunc(s.VMs, id, func(v VM, id string) int { return strings.Compare(v.ID, id) })
	if !ok {
		return VM{}, false
	}
	return s.VMs[i], true
}
