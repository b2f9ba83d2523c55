package translate

import (
	"fmt"
	"sort"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// Limits of the Antrea NetworkPolicy CRD.
const (
	maxPeers = 50  // from or to of a rule
	maxRules = 100 // ingress or egress rules of a policy
	maxPorts = 128 // ports of a rule
)

// rule translates rule i of dir into the derived rules that replace it:
// none when every peer of it is refused, several when its federated
// Services offer several port sets or its peers exceed maxPeers.
func (t *translator) rule(dir string, i int, r *antreav1beta1.Rule) []antreav1beta1.Rule {
	id := ruleID(dir, i, r.Name)
	base := r.Name
	if base == "" {
		base = fmt.Sprintf("%s-%d", dir, i)
	}
	derived := r.DeepCopy()
	derived.Name = base
	peers := &derived.From
	if dir == egress {
		peers = &derived.To
	}
	had := len(*peers)
	*peers = t.peers(dir, i, id, *peers)
	if had > 0 && len(*peers) == 0 {
		t.report.DroppedRules = append(t.report.DroppedRules, id)
		return nil
	}
	if dir == egress && hasClusterSetServices(r) {
		return t.serviceRules(i, id, derived)
	}
	return t.splitPeers(id, []antreav1beta1.Rule{*derived}, *peers, dir == ingress)
}

// peers translates the peers of a rule.
func (t *translator) peers(dir string, i int, id string, in []antreav1beta1.NetworkPolicyPeer) []antreav1beta1.NetworkPolicyPeer {
	var out []antreav1beta1.NetworkPolicyPeer
	for j := range in {
		p := &in[j]
		kind, reason, message := classify(p)
		switch kind {
		case peerCopy:
			out = append(out, *p)
		case peerUnscoped:
			cp := *p
			cp.Scope = ""
			out = append(out, cp)
		case peerEntities:
			out = append(out, t.entityPeers(dir, i, j, id, p)...)
		case peerRefused:
			t.report.RefusedPeers = append(t.report.RefusedPeers, policyv1alpha1.RefusedPeer{Rule: id, Peer: int32(j), Reason: reason, Message: message})
		}
	}
	return out
}

func hasClusterSetServices(r *antreav1beta1.Rule) bool {
	for _, s := range r.ToServices {
		if s.Scope == antreav1beta1.ScopeClusterSet {
			return true
		}
	}
	return false
}

// serviceRules replaces an egress rule with toServices of scope ClusterSet:
// its local toServices (if any) stay in the rule of its name; each
// distinct set of ports the federated Services offer becomes a rule
// "<name>-<n>", consecutive, with the rule's action, to the Groups of the
// addresses that offer those ports.
func (t *translator) serviceRules(i int, id string, r *antreav1beta1.Rule) []antreav1beta1.Rule {
	var out []antreav1beta1.Rule
	local := r.DeepCopy()
	local.ToServices = nil
	byKey := map[string]*servicePortSet{}
	var keys []string
	for j, s := range r.ToServices {
		if s.Scope != antreav1beta1.ScopeClusterSet {
			local.ToServices = append(local.ToServices, s)
			continue
		}
		for _, ps := range t.serviceSource(i, j, id, s) {
			if have := byKey[ps.key]; have != nil {
				have.peers = append(have.peers, ps.peers...)
				continue
			}
			byKey[ps.key] = &ps
			keys = append(keys, ps.key)
		}
	}
	if len(local.ToServices) > 0 {
		out = append(out, *local)
	}
	sort.Strings(keys)
	var split []antreav1beta1.Rule
	for _, k := range keys {
		ps := byKey[k]
		if len(ps.ports) > maxPorts {
			t.fail(&Problem{Reason: ReasonTooLarge, Message: fmt.Sprintf("%s: a federated Service offers %d ports on the same addresses; a rule holds at most %d", id, len(ps.ports), maxPorts)})
			return nil
		}
		rule := *r.DeepCopy()
		rule.ToServices, rule.Ports = nil, ps.ports
		split = append(split, t.splitPeers(id, []antreav1beta1.Rule{rule}, ps.peers, false)...)
	}
	for n := range split {
		split[n].Name = fmt.Sprintf("%s-%d", r.Name, n+1)
	}
	return append(out, split...)
}

// splitPeers sets peers on the rule of rules (one) and, when they exceed
// maxPeers, splits it into consecutive rules of at most maxPeers, named
// "<name>-<n>" (the same action in a row matches their union).
func (t *translator) splitPeers(id string, rules []antreav1beta1.Rule, peers []antreav1beta1.NetworkPolicyPeer, from bool) []antreav1beta1.Rule {
	set := func(r *antreav1beta1.Rule, p []antreav1beta1.NetworkPolicyPeer) {
		if from {
			r.From = p
		} else {
			r.To = p
		}
	}
	if len(peers) <= maxPeers {
		set(&rules[0], peers)
		return rules
	}
	base := rules[0]
	var out []antreav1beta1.Rule
	for n := 0; len(peers) > 0; n++ {
		k := min(len(peers), maxPeers)
		r := *base.DeepCopy()
		set(&r, peers[:k])
		r.Name = fmt.Sprintf("%s-%d", base.Name, n+1)
		out = append(out, r)
		peers = peers[k:]
	}
	t.note("%s: its peers exceed %d after translation: split into %d consecutive rules", id, maxPeers, len(out))
	return out
}
