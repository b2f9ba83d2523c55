package networks

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Verdict reasons of a Network's Valid condition, besides those of the
// API (federationv1alpha1.ReasonAmbiguous, ReasonMissingCIDRs).
const (
	// ReasonValid: the network can be used as declared.
	ReasonValid = "Valid"
	// ReasonNotImported: a Cloud network whose VPC no account of this
	// member imports: no enforcement point is in it.
	ReasonNotImported = "NotImported"
	// ReasonSecondCluster: another Network of kind Cluster is this
	// member's cluster network.
	ReasonSecondCluster = "SecondClusterNetwork"
)

// Status is what Validate says of one Network.
type Status struct {
	Valid   bool
	Reason  string
	Message string
}

// Validate judges a member's Networks as a whole (what the API server's
// rules, which see one object, cannot): a flat connection to a Network of
// this member whose ranges overlap (ambiguous), two flat peers that overlap
// each other, a flat connection to a network this member has no Network of
// and that gives no ranges (ignored: it is not flat), a Cloud network whose
// VPC imported does not hold (keyed "<provider>/<vpcID>"; nil skips the
// check), and a second Cluster network. Problems are listed in the
// message, the worst reason first.
func Validate(items []federationv1alpha1.Network, imported map[string]bool) map[string]Status {
	byName := make(map[string]*federationv1alpha1.Network, len(items))
	for i := range items {
		byName[items[i].Name] = &items[i]
	}
	cluster := ""
	for _, n := range items {
		if n.Spec.Kind == federationv1alpha1.NetworkCluster && (cluster == "" || n.Name < cluster) {
			cluster = n.Name
		}
	}
	out := make(map[string]Status, len(items))
	for i := range items {
		n := &items[i]
		var reasons, msgs []string
		add := func(reason, msg string) {
			if !slices.Contains(reasons, reason) {
				reasons = append(reasons, reason)
			}
			msgs = append(msgs, msg)
		}
		for _, o := range overlapsOf(n, byName) {
			add(federationv1alpha1.ReasonAmbiguous, o)
		}
		for _, f := range n.Spec.Flat {
			if _, local := byName[f.Network]; !local && len(parsePrefixes(f.CIDRs)) == 0 {
				add(federationv1alpha1.ReasonMissingCIDRs, fmt.Sprintf("flat network %s is not a Network of this member and gives no cidrs: "+
					"it is not treated as flat; add its ranges to the connection (flat[].cidrs)", f.Network))
			}
		}
		if n.Spec.Kind == federationv1alpha1.NetworkCloud && n.Spec.Cloud != nil && imported != nil &&
			!imported[n.Spec.Cloud.Provider+"/"+strings.ToLower(n.Spec.Cloud.VPCID)] {
			add(ReasonNotImported, fmt.Sprintf("no account of this member imports %s VPC %s: no enforcement point is in it; "+
				"a network of another member is named in the flat connections of this member's own networks, not declared as a Network",
				n.Spec.Cloud.Provider, n.Spec.Cloud.VPCID))
		}
		if n.Spec.Kind == federationv1alpha1.NetworkCluster && n.Name != cluster {
			add(ReasonSecondCluster, fmt.Sprintf("Network %s is this member's cluster network (the first of kind Cluster by name): this one is ignored", cluster))
		}
		if len(msgs) == 0 {
			out[n.Name] = Status{Valid: true, Reason: ReasonValid, Message: validMessage(n)}
			continue
		}
		out[n.Name] = Status{Reason: reasons[0], Message: strings.Join(msgs, "; ")}
	}
	return out
}

func validMessage(n *federationv1alpha1.Network) string {
	if len(n.Spec.Flat) == 0 {
		return "nothing is flat-connected to it: other networks reach it through public and NAT addresses"
	}
	names := make([]string, len(n.Spec.Flat))
	for i, f := range n.Spec.Flat {
		names[i] = f.Network
	}
	return "flat-connected to " + strings.Join(names, ", ")
}

// overlapsOf describes the overlapping ranges among the network and its
// flat peers (a local peer's own ranges count).
func overlapsOf(n *federationv1alpha1.Network, byName map[string]*federationv1alpha1.Network) []string {
	type ranged struct {
		network string
		prefix  netip.Prefix
	}
	var all []ranged
	for _, p := range parsePrefixes(n.Spec.CIDRs) {
		all = append(all, ranged{n.Name, p})
	}
	for _, f := range n.Spec.Flat {
		cidrs := f.CIDRs
		if local, ok := byName[f.Network]; ok {
			cidrs = local.Spec.CIDRs
		}
		for _, p := range parsePrefixes(cidrs) {
			all = append(all, ranged{f.Network, p})
		}
	}
	var out []string
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if all[i].network != all[j].network && all[i].prefix.Overlaps(all[j].prefix) {
				out = append(out, fmt.Sprintf("%s (%s) and %s (%s) overlap: an address in both names two hosts, and is never used; "+
					"connect them through NAT (remove the flat connection) or renumber one", all[i].network, all[i].prefix, all[j].network, all[j].prefix))
			}
		}
	}
	return out
}
