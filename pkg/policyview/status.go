package policyview

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// Status details every policy named name ("": every policy) in the snapshots: federated
// policies, Antrea NetworkPolicies and ClusterNetworkPolicies of that name,
// and the Antrea NetworkPolicies derived from a federated policy of that
// name. They are sorted as List sorts rows.
func Status(snaps []Snapshot, name string) PolicyStatus {
	st := PolicyStatus{Name: name, Members: []Member{}, Policies: []Detail{}}
	for _, s := range sortedSnapshots(snaps) {
		m := member(s)
		details := memberDetails(s, name)
		m.Policies = len(details)
		st.Members = append(st.Members, m)
		st.Policies = append(st.Policies, details...)
	}
	return st
}

// All details every policy of the snapshots (the console's policies view),
// sorted as List sorts rows.
func All(snaps []Snapshot) PolicyStatus {
	return Status(snaps, "")
}

// memberDetails details the member's policies named name; every one when
// name is "".
func memberDetails(s Snapshot, name string) []Detail {
	var base Row
	base.Context = s.Context
	if s.Membership != nil {
		base.ClusterID = s.Membership.Spec.ClusterID
	}
	var out []Detail
	for i := range s.Federated {
		if p := &s.Federated[i]; name == "" || p.Name == name {
			out = append(out, federatedDetail(base, p))
		}
	}
	for i := range s.NetworkPolicies {
		p := &s.NetworkPolicies[i]
		if name != "" && p.Name != name && p.Labels[FederatedPolicyLabel] != name {
			continue
		}
		d := antreaDetail(antreaRow(base, KindNetworkPolicy, p.ObjectMeta, p.Spec.Tier, p.Spec.Priority, p.Status), p.Status)
		d.DerivedFrom = p.Labels[FederatedPolicyLabel]
		out = append(out, d)
	}
	for i := range s.ClusterNetworkPolicies {
		if p := &s.ClusterNetworkPolicies[i]; name == "" || p.Name == name {
			out = append(out, antreaDetail(antreaRow(base, KindClusterNetworkPolicy, p.ObjectMeta, p.Spec.Tier, p.Spec.Priority, p.Status), p.Status))
		}
	}
	slices.SortFunc(out, func(a, b Detail) int { return compareRows(a.Row, b.Row) })
	return out
}

func federatedDetail(base Row, p *policyv1alpha1.FederatedNetworkPolicy) Detail {
	d := Detail{Row: federatedRow(base, p), Conditions: []Condition{}}
	for _, c := range p.Status.Conditions {
		d.Conditions = append(d.Conditions, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason,
			Message: c.Message, LastTransitionTime: timeOrNil(c.LastTransitionTime)})
	}
	d.DerivedPolicy = p.Status.DerivedPolicy
	d.EnforcementPoints = p.Status.EnforcementPoints
	d.RemoteSources = p.Status.RemoteSources
	d.RefusedPeers = p.Status.RefusedPeers
	return d
}

func antreaDetail(r Row, st antreav1beta1.NetworkPolicyStatus) Detail {
	d := Detail{Row: r, Conditions: []Condition{}}
	for _, c := range st.Conditions {
		d.Conditions = append(d.Conditions, Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason,
			Message: c.Message, LastTransitionTime: timeOrNil(c.LastTransitionTime)})
	}
	return d
}

func timeOrNil(t metav1.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
