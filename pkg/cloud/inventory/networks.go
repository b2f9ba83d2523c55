package inventory

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// NetworkName is the name the federation gives the network of a VPC or
// VNet: the provider in lower case, a dot, and the VPC id as the
// ExternalEntities' cloud.antreaplus.io/vpc label carries it (an AWS VPC id
// as it is; an Azure VNet's name and a hash of its ARM id). It is a DNS
// subdomain and a label value; "" without a VPC.
func NetworkName(cloud, vpcID string) string {
	if vpcID == "" {
		return ""
	}
	p := strings.ToLower(cloud)
	if p == "" {
		p = "cloud"
	}
	return p + "." + ObjectName(vpcID, "")
}

// ManagedByNetworks is the managed-by label of the Networks the cloud
// controller writes.
const ManagedByNetworks = "antreaplus-cloud-controller"

// Networks returns the Networks of the VPCs (VNets) of the snapshots that
// objects were imported from: their ranges, and the flat connections the
// cloud shows (active peerings), sorted by name. A VPC that imports
// nothing is not a network of this member.
func Networks(snaps []*provider.Snapshot, imported Objects) []federationv1alpha1.Network {
	used := map[string]bool{}
	for _, n := range imported.NetworkInterfaces {
		used[strings.ToLower(n.Spec.VPCID)] = true
	}
	for _, s := range imported.CloudNativeServices {
		used[strings.ToLower(s.Spec.VPCID)] = true
	}
	var out []federationv1alpha1.Network
	for _, snap := range snaps {
		for _, v := range snap.VPCs {
			if !used[strings.ToLower(v.ID)] || len(v.CIDRs) == 0 {
				continue
			}
			out = append(out, network(snap.Cloud, v))
		}
	}
	slices.SortFunc(out, func(a, b federationv1alpha1.Network) int { return strings.Compare(a.Name, b.Name) })
	return slices.CompactFunc(out, func(a, b federationv1alpha1.Network) bool { return a.Name == b.Name })
}

func network(cloud provider.Cloud, v provider.VPC) federationv1alpha1.Network {
	n := federationv1alpha1.Network{
		ObjectMeta: metav1.ObjectMeta{Name: NetworkName(string(cloud), v.ID), Labels: map[string]string{federationv1alpha1.LabelManagedBy: ManagedByNetworks}},
		Spec: federationv1alpha1.NetworkSpec{Kind: federationv1alpha1.NetworkCloud, CIDRs: slices.Sorted(slices.Values(v.CIDRs)),
			Cloud: &federationv1alpha1.CloudNetwork{Provider: string(cloud), VPCID: v.ID}},
	}
	for _, p := range v.Peerings {
		if len(p.PeerCIDRs) == 0 {
			continue
		}
		n.Spec.Flat = append(n.Spec.Flat, federationv1alpha1.FlatConnection{Network: NetworkName(string(cloud), p.PeerVPCID),
			CIDRs: slices.Sorted(slices.Values(p.PeerCIDRs)), Via: federationv1alpha1.ConnectionVia(p.Via), ID: p.ID})
	}
	slices.SortFunc(n.Spec.Flat, func(a, b federationv1alpha1.FlatConnection) int { return strings.Compare(a.Network, b.Network) })
	n.Spec.Flat = slices.CompactFunc(n.Spec.Flat, func(a, b federationv1alpha1.FlatConnection) bool { return a.Network == b.Network })
	return n
}
