package networks

import (
	"net/netip"
	"slices"
	"strings"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// FromAPI turns a member's Network objects into the decision's networks,
// sorted by name. A range that does not parse (the API server refuses
// them) is left out.
func FromAPI(items []federationv1alpha1.Network) []Network {
	out := make([]Network, 0, len(items))
	for i := range items {
		n := &items[i]
		nw := Network{Name: n.Name, Prefixes: parsePrefixes(n.Spec.CIDRs)}
		for _, f := range n.Spec.Flat {
			nw.Flat = append(nw.Flat, Flat{Network: f.Network, Prefixes: parsePrefixes(f.CIDRs), Via: string(f.Via)})
		}
		out = append(out, nw)
	}
	slices.SortFunc(out, func(a, b Network) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func parsePrefixes(cidrs []string) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(cidrs))
	for _, c := range cidrs {
		if p, err := netip.ParsePrefix(c); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}

// ClusterNetwork is the name of the network of the member's Pods: its
// Network of kind Cluster (the first by name, should there be several),
// else "cluster.<clusterID>" (a network this member declares nothing of:
// nothing is flat to it).
func ClusterNetwork(items []federationv1alpha1.Network, clusterID string) string {
	var names []string
	for i := range items {
		if items[i].Spec.Kind == federationv1alpha1.NetworkCluster {
			names = append(names, items[i].Name)
		}
	}
	if len(names) > 0 {
		slices.Sort(names)
		return names[0]
	}
	if clusterID == "" {
		return ""
	}
	return federationv1alpha1.ClusterNetworkPrefix + clusterID
}
