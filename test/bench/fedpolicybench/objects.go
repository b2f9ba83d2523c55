package main

import (
	"encoding/json"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// Labels and names of the bench's objects.
const (
	vmName      = "bench-vm"
	labelApp    = "app"
	labelRole   = "role"
	labelExport = "bench.antreaplus.io/exported"
	serviceName = "orders"
	sliceName   = "orders-bench"
	// Roles of the peers: each is selected by one rule of the VM's policies.
	roleRemoteIP  = "remote-ip"
	roleRemoteNew = "remote-new"
	roleLocalIP   = "local-ip"
	roleLocalNew  = "local-new"
	roleRemoteNAT = "remote-nat"
	// Ports of the rules, one per role, so that each rule stays apart.
	portIP      = 8080
	portNew     = 8081
	portNAT     = 8082
	servicePort = 80
	targetPort  = 9090
)

// pool hands out addresses never used before in the run, so that an
// address in the agent's rules can only come from the change that
// introduced it.
type pool struct{ next netip.Addr }

func newPool(first string) *pool { return &pool{next: netip.MustParseAddr(first)} }

func (p *pool) take() netip.Addr {
	a := p.next
	p.next = p.next.Next()
	return a
}

func virtualMachine() *cloudv1alpha1.VirtualMachine {
	return &cloudv1alpha1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: vmName},
		Spec: cloudv1alpha1.VirtualMachineSpec{Provider: cloudv1alpha1.ProviderAWS,
			AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "bench"}, CloudID: "i-" + vmName,
			Region: "us-east-1", State: cloudv1alpha1.VMStateRunning, EnforcementMode: cloudv1alpha1.EnforcementAgented},
	}
}

// externalEntity is an entity of ns with one address; externalNode names the VM
// it would be the interface of.
func externalEntity(ns, name, ip, externalNode string, labels map[string]string) *antreav1alpha2.ExternalEntity {
	return &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: ip, Name: "eth0"}},
			ExternalNode: externalNode},
	}
}

// The bench's networks (docs/networks.md): member-1's exported entities
// are in remoteNetwork, which member-2 declares flat to the VM's network
// (localNetwork), except the NAT role's, in natNetwork, behind a NAT
// gateway whose address (pool natAddresses) is how they arrive.
const (
	remoteNetwork = "bench.remote"
	natNetwork    = "bench.nat"
	localNetwork  = "bench.local"
	natGateway    = "nat-bench"
)

// peerEntity is an entity of a role (exported when remote, its address
// classified in remoteNetwork).
func peerEntity(role string, i int, ip netip.Addr, exported bool) *antreav1alpha2.ExternalEntity {
	labels := map[string]string{labelRole: role}
	name := fmt.Sprintf("%s-%d", role, i)
	ee := externalEntity(namespace, name, ip.String(), "vm-"+name, labels)
	if exported {
		labels[labelExport] = "true"
		labels[federationv1alpha1.LabelNetwork] = remoteNetwork
		ee.Annotations = addresses(federationv1alpha1.EntityAddress{IP: ip.String(), Kind: federationv1alpha1.AddressPrivate, Network: remoteNetwork})
	}
	return ee
}

// natEntity is an exported entity of the NAT role: private in natNetwork,
// leaving with the NAT gateway's address egress.
func natEntity(i int, private, egress netip.Addr) *antreav1alpha2.ExternalEntity {
	name := fmt.Sprintf("%s-%d", roleRemoteNAT, i)
	ee := externalEntity(namespace, name, private.String(), "vm-"+name,
		map[string]string{labelRole: roleRemoteNAT, labelExport: "true", federationv1alpha1.LabelNetwork: natNetwork})
	ee.Annotations = natAddresses(private, egress)
	return ee
}

func natAddresses(private, egress netip.Addr) map[string]string {
	return addresses(federationv1alpha1.EntityAddress{IP: private.String(), Kind: federationv1alpha1.AddressPrivate, Network: natNetwork},
		federationv1alpha1.EntityAddress{IP: egress.String(), Kind: federationv1alpha1.AddressEgress, Via: natGateway})
}

// addresses is the annotation that classifies an entity's addresses, as
// the cloud controller writes it.
func addresses(a ...federationv1alpha1.EntityAddress) map[string]string {
	raw, _ := json.Marshal(a)
	return map[string]string{federationv1alpha1.AnnotationAddresses: string(raw)}
}

// network is member-2's Network of the VM (its link, vmRange): flat to
// remoteNetwork (the ranges of the remote pools), not to natNetwork.
func network(vmRange string) *federationv1alpha1.Network {
	return &federationv1alpha1.Network{ObjectMeta: metav1.ObjectMeta{Name: localNetwork},
		Spec: federationv1alpha1.NetworkSpec{Kind: federationv1alpha1.NetworkOther, CIDRs: []string{vmRange},
			Flat: []federationv1alpha1.FlatConnection{{Network: remoteNetwork, CIDRs: []string{"172.21.0.0/16", "172.23.0.0/16", "172.25.0.0/16"}}}}}
}

func entityExport() *federationv1alpha1.EntityExport {
	return &federationv1alpha1.EntityExport{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "bench-vms"},
		Spec: federationv1alpha1.EntityExportSpec{ExternalEntitySelector: metav1.LabelSelector{
			MatchLabels: map[string]string{labelExport: "true"}}},
	}
}

func matchRole(role string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{labelRole: role}}
}

func vmSelector() []antreav1beta1.AppliedTo {
	return []antreav1beta1.AppliedTo{{ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{labelApp: vmName}}}}
}

func tcpPort(p int32) []antreav1beta1.NetworkPolicyPort {
	return []antreav1beta1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(p))}}
}

// ingressFrom is an Allow rule from the entities of a role, in scope.
func ingressFrom(name, role string, port int32, scope antreav1beta1.PeerScope) antreav1beta1.Rule {
	return antreav1beta1.Rule{Name: name, Action: ptr.To(antreav1beta1.RuleActionAllow), Ports: tcpPort(port),
		From: []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: matchRole(role), Scope: scope}}}
}

// federatedPolicy lets the VM be reached by member-1's exported entities
// and reach the federated Service.
func federatedPolicy() *policyv1alpha1.FederatedNetworkPolicy {
	return &policyv1alpha1.FederatedNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "remote"},
		Spec: antreav1beta1.NetworkPolicySpec{Tier: "application", Priority: 1, AppliedTo: vmSelector(),
			Ingress: []antreav1beta1.Rule{
				ingressFrom("from-remote-ip", roleRemoteIP, portIP, antreav1beta1.ScopeClusterSet),
				ingressFrom("from-remote-new", roleRemoteNew, portNew, antreav1beta1.ScopeClusterSet),
				ingressFrom("from-remote-nat", roleRemoteNAT, portNAT, antreav1beta1.ScopeClusterSet),
			},
			Egress: []antreav1beta1.Rule{{Name: "to-orders", Action: ptr.To(antreav1beta1.RuleActionAllow),
				ToServices: []antreav1beta1.PeerService{{Name: serviceName, Namespace: namespace, Scope: antreav1beta1.ScopeClusterSet}}}},
		},
	}
}

// localPolicy is the baseline: an ordinary Antrea policy on the same VM,
// from member-2's own entities.
func localPolicy() *antreav1beta1.NetworkPolicy {
	return &antreav1beta1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "local"},
		Spec: antreav1beta1.NetworkPolicySpec{Tier: "application", Priority: 2, AppliedTo: vmSelector(),
			Ingress: []antreav1beta1.Rule{
				ingressFrom("from-local-ip", roleLocalIP, portIP, ""),
				ingressFrom("from-local-new", roleLocalNew, portNew, ""),
			}},
	}
}

// service is member-1's Service without selector: the bench writes its
// EndpointSlice, as a flat network's Pods would have.
func service() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: serviceName},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP,
			Port: servicePort, TargetPort: intstr.FromInt32(targetPort)}}},
	}
}

func endpointSlice(ip netip.Addr) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: sliceName, Labels: map[string]string{
			discoveryv1.LabelServiceName: serviceName, discoveryv1.LabelManagedBy: "bench.antreaplus.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To[int32](targetPort)}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip.String()}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
	}
}

func serviceExport() *mcsv1beta1.ServiceExport {
	return &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: serviceName,
		Annotations: map[string]string{federationv1alpha1.AnnotationFlatNetwork: "true", federationv1alpha1.AnnotationNetwork: remoteNetwork}}}
}
