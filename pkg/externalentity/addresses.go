package externalentity

import (
	"encoding/json"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// interfaceAddresses classifies an interface's addresses: its private
// addresses in network, its public ones, and the egress addresses its
// traffic leaves with: its NAT gateway's, else its egressIPs, else its
// public IPs (an interface with a public IP and no NAT gateway leaves
// through it).
func interfaceAddresses(network string, nic *cloudv1alpha1.NetworkInterfaceSpec) []federationv1alpha1.EntityAddress {
	out := classified(network, nic.PrivateIPs, nic.PublicIPs)
	via, egress := nic.NATGatewayID, nic.EgressIPs
	switch {
	case via == "" && len(egress) > 0:
		via = federationv1alpha1.EgressViaPublicIP
	case via == "":
		via, egress = federationv1alpha1.EgressViaPublicIP, nic.PublicIPs
	}
	for _, ip := range egress {
		out = append(out, federationv1alpha1.EntityAddress{IP: ip, Kind: federationv1alpha1.AddressEgress, Via: via})
	}
	return out
}

// serviceAddresses classifies a cloud-native service's addresses. A
// service only receives: it has no egress address.
func serviceAddresses(network string, private, public []string) []federationv1alpha1.EntityAddress {
	return classified(network, private, public)
}

func classified(network string, private, public []string) []federationv1alpha1.EntityAddress {
	out := make([]federationv1alpha1.EntityAddress, 0, len(private)+2*len(public))
	for _, ip := range private {
		out = append(out, federationv1alpha1.EntityAddress{IP: ip, Kind: federationv1alpha1.AddressPrivate, Network: network})
	}
	for _, ip := range public {
		out = append(out, federationv1alpha1.EntityAddress{IP: ip, Kind: federationv1alpha1.AddressPublic})
	}
	return out
}

// addressesAnnotation is the annotations of an entity that classify its
// addresses (federationv1alpha1.AnnotationAddresses), none without any.
func addressesAnnotation(addrs []federationv1alpha1.EntityAddress) map[string]string {
	if len(addrs) == 0 {
		return nil
	}
	b, err := json.Marshal(addrs)
	if err != nil {
		return nil
	}
	return map[string]string{federationv1alpha1.AnnotationAddresses: string(b)}
}
