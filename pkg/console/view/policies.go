package view

import (
	"errors"
	"time"

	"antreaplus.io/antreaplus/pkg/policyview"
)

// The kinds the policies view reads.
var policyKinds = []string{"FederatedNetworkPolicies", "NetworkPolicies", "ClusterNetworkPolicies"}

// Policies is the policies view: every policy of every member (what
// `antreaplus policy list` lists) in detail (what `antreaplus policy
// status` shows of each: conditions, the derived policy, the remote
// sources resolved and awaited, the peers refused and why, and the
// realisation at each enforcement point).
type Policies struct {
	Headers  []MemberHeader      `json:"headers"`
	Summary  policyview.Summary  `json:"summary"`
	Policies []Policy            `json:"policies"`
	Members  []policyview.Member `json:"members"`
}

// Policy is one policy of one member, in detail.
type Policy struct {
	policyview.Detail
	// State is the filter's: "Realized", "NotRealized", "Stale",
	// "Refused" (a federated policy with refused peers), "Pending" (no
	// status yet).
	State   string `json:"state"`
	Kubectl string `json:"kubectl"`
}

// PoliciesOf is the policies view of the members at now.
func PoliciesOf(members []*Member, now time.Time) Policies {
	v := Policies{Headers: []MemberHeader{}, Policies: []Policy{}}
	var snaps []policyview.Snapshot
	for _, m := range sortMembers(members) {
		v.Headers = append(v.Headers, header(m, policyKinds...))
		snaps = append(snaps, snapshotOf(m))
	}
	l := policyview.List(snaps)
	v.Summary, v.Members = l.Summary, l.Members
	for _, d := range policyview.All(snaps).Policies {
		v.Policies = append(v.Policies, Policy{Detail: d, State: policyState(d),
			Kubectl: Kubectl(d.Context, resourceOf(d.Kind), d.Namespace, d.Name)})
	}
	return v
}

// snapshotOf is a member as policyview reads it.
func snapshotOf(m *Member) policyview.Snapshot {
	s := policyview.Snapshot{Context: m.Context, Membership: m.Membership, KindErrors: map[string]error{},
		Federated: m.Federated, NetworkPolicies: m.NetworkPolicies, ClusterNetworkPolicies: m.ClusterNetworkPolicies}
	kinds := map[string]string{"FederatedNetworkPolicies": policyview.KindFederated, "NetworkPolicies": policyview.KindNetworkPolicy,
		"ClusterNetworkPolicies": policyview.KindClusterNetworkPolicy}
	for _, k := range policyKinds {
		st := m.Kinds[k]
		switch st.State {
		case NotInstalled:
			s.NotInstalled = append(s.NotInstalled, kinds[k])
		case NotReadable, Failing:
			s.KindErrors[kinds[k]] = errors.New(st.Message)
		}
	}
	if m.Health.Probed && !m.Health.Reachable && !readable(m, "NetworkPolicies") && len(m.NetworkPolicies) == 0 {
		s.Err = errors.New("unreachable: " + m.Health.Error)
	}
	return s
}

// policyState is a policy's state for the view's filter.
func policyState(d policyview.Detail) string {
	switch {
	case len(d.RefusedPeers) > 0:
		return "Refused"
	case d.Phase == "":
		return "Pending"
	case d.Stale:
		return "Stale"
	case d.IsRealized():
		return "Realized"
	}
	return "NotRealized"
}

// resourceOf is kubectl's name of a kind of policy.
func resourceOf(kind string) string {
	switch kind {
	case policyview.KindFederated:
		return "federatednetworkpolicies.policy.antreaplus.io"
	case policyview.KindClusterNetworkPolicy:
		return "clusternetworkpolicies.crd.antrea.io"
	}
	return "networkpolicies.crd.antrea.io"
}
