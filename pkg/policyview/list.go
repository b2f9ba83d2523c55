package policyview

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// List builds the listing of every policy the snapshots hold, one row per
// policy, sorted by context, Namespace (cluster-wide policies first), name
// (a derived policy right after its federated policy) and kind.
func List(snaps []Snapshot) Listing {
	l := Listing{Members: []Member{}, Policies: []Row{}}
	for _, s := range sortedSnapshots(snaps) {
		m := member(s)
		rows := memberRows(s)
		m.Policies = len(rows)
		l.Members = append(l.Members, m)
		l.Policies = append(l.Policies, rows...)
	}
	l.Summary = summarize(l)
	return l
}

func sortedSnapshots(snaps []Snapshot) []Snapshot {
	out := slices.Clone(snaps)
	slices.SortStableFunc(out, func(a, b Snapshot) int { return cmp.Compare(a.Context, b.Context) })
	return out
}

// member is how a snapshot's member was read.
func member(s Snapshot) Member {
	m := Member{Context: s.Context, Readable: s.Err == nil, NotInstalled: s.NotInstalled}
	if s.Membership != nil {
		m.ClusterID, m.FederationID = s.Membership.Spec.ClusterID, s.Membership.Spec.FederationID
	}
	if s.Err != nil {
		m.Errors = append(m.Errors, s.Err.Error())
	}
	for _, kind := range append(append([]string{membershipKind}, kinds...), KindStats) {
		if err := s.KindErrors[kind]; err != nil {
			m.Errors = append(m.Errors, err.Error())
		}
	}
	return m
}

// kinds are the kinds of policy, in the order of rows.
var kinds = []string{KindFederated, KindNetworkPolicy, KindClusterNetworkPolicy}

func memberRows(s Snapshot) []Row {
	var base Row
	base.Context = s.Context
	if s.Membership != nil {
		base.ClusterID = s.Membership.Spec.ClusterID
	}
	var rows []Row
	for i := range s.Federated {
		rows = append(rows, federatedRow(base, &s.Federated[i]))
	}
	for i := range s.NetworkPolicies {
		p := &s.NetworkPolicies[i]
		r := antreaRow(base, KindNetworkPolicy, p.ObjectMeta, p.Spec.Tier, p.Spec.Priority, p.Status)
		r.DerivedFrom = p.Labels[FederatedPolicyLabel]
		rows = append(rows, r)
	}
	for i := range s.ClusterNetworkPolicies {
		p := &s.ClusterNetworkPolicies[i]
		rows = append(rows, antreaRow(base, KindClusterNetworkPolicy, p.ObjectMeta, p.Spec.Tier, p.Spec.Priority, p.Status))
	}
	slices.SortFunc(rows, compareRows)
	return rows
}

// compareRows orders rows of one member: by Namespace, then by the name of
// the federated policy they belong to, then kind, then name.
func compareRows(a, b Row) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(family(a), family(b)),
		cmp.Compare(slices.Index(kinds, a.Kind), slices.Index(kinds, b.Kind)), cmp.Compare(a.Name, b.Name))
}

func family(r Row) string {
	if r.DerivedFrom != "" {
		return r.DerivedFrom
	}
	return r.Name
}

func federatedRow(base Row, p *policyv1alpha1.FederatedNetworkPolicy) Row {
	r := base
	r.Kind, r.Namespace, r.Name, r.Federated = KindFederated, p.Namespace, p.Name, true
	r.Tier, r.Priority = p.Spec.Tier, p.Spec.Priority
	st := p.Status
	r.Phase = string(st.Phase)
	r.Desired = len(st.EnforcementPoints)
	for _, e := range st.EnforcementPoints {
		if e.Realized {
			r.Realized++
		}
	}
	r.Remote = &RemoteCounts{SourcesTotal: len(st.RemoteSources), RefusedPeers: len(st.RefusedPeers)}
	for _, src := range st.RemoteSources {
		if src.Resolved {
			r.Remote.SourcesResolved++
		}
	}
	written := st.ObservedGeneration > 0 || st.Phase != "" || len(st.Conditions) > 0
	setGenerations(&r, p.Generation, st.ObservedGeneration, written)
	return r
}

func antreaRow(base Row, kind string, meta metav1.ObjectMeta, tier string, priority float64, st antreav1beta1.NetworkPolicyStatus) Row {
	r := base
	r.Kind, r.Namespace, r.Name = kind, meta.Namespace, meta.Name
	r.Tier, r.Priority = tier, priority
	r.Phase = string(st.Phase)
	r.Realized, r.Desired = int(st.CurrentNodesRealized), int(st.DesiredNodesRealized)
	written := st.ObservedGeneration > 0 || st.Phase != "" || len(st.Conditions) > 0
	setGenerations(&r, meta.Generation, st.ObservedGeneration, written)
	return r
}

// setGenerations marks a row stale when a status was written for an older
// generation. A status nobody wrote is not stale: it has no phase.
func setGenerations(r *Row, generation, observed int64, written bool) {
	r.Generation, r.ObservedGeneration = generation, observed
	r.Stale = written && observed < generation
}

// IsRealized reports whether the row's status says the newest generation
// is enforced everywhere it should be.
func (r Row) IsRealized() bool {
	return r.Phase == string(antreav1beta1.NetworkPolicyRealized) && !r.Stale && r.Realized >= r.Desired
}

// summarize counts the listing's policies, a derived policy whose federated
// policy is listed too only as that federated policy.
func summarize(l Listing) Summary {
	s := Summary{Members: len(l.Members)}
	for _, m := range l.Members {
		if m.Readable {
			s.MembersRead++
		} else {
			s.MembersUnreadable++
		}
	}
	federated := map[[3]string]bool{}
	for _, r := range l.Policies {
		if r.Federated {
			federated[[3]string{r.Context, r.Namespace, r.Name}] = true
		}
	}
	for _, r := range l.Policies {
		if r.DerivedFrom != "" {
			s.Derived++
			if federated[[3]string{r.Context, r.Namespace, r.DerivedFrom}] {
				continue
			}
		}
		s.Policies++
		if r.Federated {
			s.Federated++
		}
		if r.Stale {
			s.Stale++
		}
		if !r.IsRealized() {
			s.NotRealized++
		}
	}
	return s
}
