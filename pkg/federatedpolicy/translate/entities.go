package translate

import (
	"fmt"
	"net/netip"
	"sort"

	"k8s.io/apimachinery/pkg/labels"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/networks"
)

// entityPeers translates a ClusterSet externalEntitySelector peer (peer j
// of rule i of dir): its local part, when it holds for this member, and a
// group peer for each Group of the remote entities it selects, with the
// addresses the enforcement point sees of them.
func (t *translator) entityPeers(dir string, i, j int, id string, p *antreav1beta1.NetworkPolicyPeer) []antreav1beta1.NetworkPolicyPeer {
	sel, prob := parseSelector(p.ExternalEntitySelector, id, j, "externalEntitySelector")
	if prob == nil && p.NamespaceSelector != nil {
		_, prob = parseSelector(p.NamespaceSelector, id, j, "namespaceSelector")
	}
	if prob != nil {
		t.fail(prob)
		return nil
	}
	var out []antreav1beta1.NetworkPolicyPeer
	if local, ok := t.localPeer(p); ok {
		out = append(out, local)
	}
	namespaces := t.peerNamespaces(p)
	sel2 := t.selectEntities(sel, namespaces, direction(dir))
	addrs := sel2.addrs
	src := policyv1alpha1.RemoteSourceStatus{Rule: id, Kind: KindRemoteEntities, Name: describe(p.ExternalEntitySelector),
		Resolved: len(addrs) > 0, Clusters: sel2.clusters, Addresses: int32(len(addrs)),
		Unusable: sel2.unusable, SharedEgress: t.sharedEgress(sel2)}
	if p.NamespaceSelector != nil {
		src.Name += " in namespaces " + describe(p.NamespaceSelector)
	}
	src.NotExportedHere = t.notExportedHere(func(w *federationv1alpha1.WithheldExports) []federationv1alpha1.WithheldExport { return w.Entities },
		func(w *federationv1alpha1.WithheldExports) int32 { return w.MoreEntities }, namespaces, "")
	parts := chunks(addrs)
	switch {
	case len(namespaces) == 0:
		src.Message = "the namespaceSelector selects no Namespace of this member"
	case len(addrs) == 0 && sel2.matched > 0:
		src.Message = fmt.Sprintf("%d remote entities match, but none has an address usable here: see unusable", sel2.matched)
	case len(addrs) == 0 && len(src.NotExportedHere) > 0:
		src.Message = "no remote entity matches here; some members export entities in these Namespaces, but not to this member: see notExportedHere"
	case len(addrs) == 0:
		src.Message = "no remote entity matches yet: export them with an EntityExport in their member"
	case len(parts) > 1:
		src.Message = fmt.Sprintf("split into %d Groups of at most %d addresses", len(parts), maxIPBlocks)
		t.note("%s peer %d: %d addresses split into %d Groups of at most %d ipBlocks", id, j, len(addrs), len(parts), maxIPBlocks)
	}
	t.report.RemoteSources = append(t.report.RemoteSources, src)
	for k, part := range parts {
		out = append(out, antreav1beta1.NetworkPolicyPeer{Group: t.addGroup(entitiesGroupName(t.policy.Name, dir, i, j, k), part)})
	}
	return out
}

// direction is how a rule of dir sees its peers.
func direction(dir string) networks.Direction {
	if dir == ingress {
		return networks.Source
	}
	return networks.Destination
}

// peerNamespaces are the Namespaces a peer selects remote entities in:
// the policy's own, or those its namespaceSelector selects (sorted).
func (t *translator) peerNamespaces(p *antreav1beta1.NetworkPolicyPeer) []string {
	if p.NamespaceSelector == nil {
		return []string{t.policy.Namespace}
	}
	sel, prob := parseSelector(p.NamespaceSelector, "", 0, "")
	if prob != nil {
		return nil
	}
	var out []string
	for name, lbls := range t.in.Namespaces {
		if sel.Matches(labels.Set(lbls)) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// selection is what a peer selects of the remote entities at the
// translation's enforcement point.
type selection struct {
	// addrs are the usable addresses, normalised.
	addrs []netip.Addr
	// clusters are the members they come from, sorted.
	clusters []string
	// matched counts the entities the selector matches.
	matched int
	// selected are the matched entities with a usable egress address
	// ("namespace/name").
	selected map[string]bool
	// egress are the usable egress addresses and what they are.
	egress map[netip.Addr]string
	// unusable says why some matched entities or addresses are left out.
	unusable []string
}

// maxUnusable is how many unusable lines a source reports.
const maxUnusable = 16

// selectEntities returns what sel selects in namespaces at the point.
func (t *translator) selectEntities(sel labels.Selector, namespaces []string, dir networks.Direction) selection {
	var s selection
	clusters := map[string]bool{}
	var lines lineCap
	for _, ns := range namespaces {
		for _, e := range t.in.Entities.inNamespace(ns) {
			if !sel.Matches(e.labels) {
				continue
			}
			s.matched++
			vd := t.view.Decide(&e.entity, dir)
			if len(vd.Addresses) == 0 {
				lines.add(func() string { return t.at() + vd.Reason() })
				continue
			}
			for _, r := range vd.Rejected {
				lines.add(func() string { return t.at() + e.entity.Name + ": " + r.Message() })
			}
			s.addrs = append(s.addrs, vd.Addresses...)
			for _, eg := range vd.Egress {
				if s.egress == nil {
					s.egress = map[netip.Addr]string{}
				}
				s.egress[eg.IP] = eg.Via
			}
			if len(vd.Egress) > 0 { // only entities that leave through an egress address share one
				if s.selected == nil {
					s.selected = map[string]bool{}
				}
				s.selected[e.key] = true
			}
			clusters[e.cluster] = true
		}
	}
	s.addrs, s.clusters, s.unusable = normalize(s.addrs), sortedKeys(clusters), lines.result()
	return s
}

// lineCap collects the first maxUnusable-1 lines of a report, built only
// when kept, and counts the others.
type lineCap struct {
	lines []string
	more  int
}

func (c *lineCap) add(line func() string) {
	if len(c.lines) < maxUnusable-1 {
		c.lines = append(c.lines, line())
		return
	}
	c.more++
}

// result is the lines, the last saying how many more there were (at most
// maxUnusable in all).
func (c *lineCap) result() []string {
	switch {
	case c.more == 1:
		return append(c.lines, "and 1 more")
	case c.more > 1:
		return append(c.lines, fmt.Sprintf("and %d more", c.more))
	}
	return c.lines
}

// at prefixes a line about the point when the policy has several.
func (t *translator) at() string {
	if t.multi {
		return "at " + t.view.Network() + ": "
	}
	return ""
}

// capLines keeps maxUnusable lines, the last saying how many more there
// were.
func capLines(lines []string) []string {
	if len(lines) <= maxUnusable {
		return lines
	}
	more := len(lines) - (maxUnusable - 1)
	return append(lines[:maxUnusable-1:maxUnusable-1], fmt.Sprintf("and %d more", more))
}

// sharedEgress describes the egress addresses of s that admit more than
// s selects: every host behind a NAT gateway, and the other remote
// entities that leave through it.
func (t *translator) sharedEgress(s selection) []string {
	addrs := make([]netip.Addr, 0, len(s.egress))
	for a := range s.egress {
		addrs = append(addrs, a)
	}
	addrs = normalize(addrs)
	var out lineCap
	for _, a := range addrs {
		via := s.egress[a]
		var others []string
		n := 0
		for _, name := range t.in.Entities.byEgress[a] { // sorted
			if s.selected[name] {
				continue
			}
			if n++; len(others) < maxNamed {
				others = append(others, name)
			}
		}
		switch {
		case via != "" && via != "PublicIP":
			out.add(func() string {
				line := fmt.Sprintf("%s is NAT gateway %s's: it admits every host behind it", a, via)
				if n > 0 {
					line += fmt.Sprintf(", including %d remote entities this peer does not select: %s", n, listNamed(others, n))
				}
				return t.at() + line
			})
		case n > 0:
			out.add(func() string {
				return t.at() + fmt.Sprintf("%s is also the egress address of %d remote entities this peer does not select: %s", a, n, listNamed(others, n))
			})
		}
	}
	return out.result()
}

// maxNamed is how many entities a shared-egress line names.
const maxNamed = 5

// listNamed writes the first names of n, then how many more.
func listNamed(names []string, n int) string {
	if n <= len(names) {
		return fmt.Sprint(names)
	}
	return fmt.Sprintf("%v and %d more", names, n-len(names))
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// notExportedHere names the members whose exports in namespaces (of name,
// unless empty) are withheld from this member, and why (the lists of the
// ClusterMembership's status.withheld that of and more pick); the last
// line counts the exports the status could not list, when it could not.
func (t *translator) notExportedHere(of func(*federationv1alpha1.WithheldExports) []federationv1alpha1.WithheldExport,
	more func(*federationv1alpha1.WithheldExports) int32, namespaces []string, name string) []string {
	w := t.in.Member.Withheld
	if w == nil {
		return nil
	}
	var lines []string
	seen := map[string]bool{}
	for _, ns := range namespaces {
		for _, line := range exportscope.WithheldFrom(of(w), ns, name) {
			if !seen[line] {
				seen[line] = true
				lines = append(lines, line)
			}
		}
	}
	if n := more(w); n > 0 && len(lines) > 0 {
		lines = append(lines, fmt.Sprintf("and what %d more withheld exports of this member's status.withheld could not list", n))
	}
	return capLines(lines)
}
