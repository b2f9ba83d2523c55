package membership

import (
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Registry is one supervisor's registry as a caller read it (the console,
// from its watches): the input of Merge.
type Registry struct {
	Supervisor SupervisorStatus
	Entries    []federationv1alpha1.MemberCluster
}

// LeaseView is a member's leader Lease as read in the member: the input of
// Merge (LeaseOf, LeaseNotRead).
type LeaseView = leaseView

// LeaseOf is a member's leader Lease (nil: the member has none) and its
// ClusterMembership (nil: none), as read.
func LeaseOf(lease *coordinationv1.Lease, m *federationv1alpha1.ClusterMembership) LeaseView {
	if lease == nil {
		return leaseView{read: true, refuses: refusalOf(m)}
	}
	l := leaseView{read: true, renewTime: lease.Spec.RenewTime, since: lease.Spec.AcquireTime, refuses: refusalOf(m)}
	if lease.Spec.LeaseTransitions != nil {
		l.term = *lease.Spec.LeaseTransitions
	}
	if lease.Spec.HolderIdentity != nil {
		l.holder = *lease.Spec.HolderIdentity
	}
	if lease.Spec.LeaseDurationSeconds != nil {
		l.duration = time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second
	}
	return l
}

// LeaseNotRead is a member whose leader Lease could not be read, and why.
func LeaseNotRead(err error) LeaseView { return leaseView{err: err} }

// Merge merges the registries of several supervisors and the members'
// leader Leases (by ClusterID) into one view of the federation at now:
// what `antreaplus federation status` shows, problems included.
func Merge(regs []Registry, leases map[string]LeaseView, now time.Time) *FederationStatus {
	views := make([]registryView, len(regs))
	for i, r := range regs {
		views[i] = registryView{supervisor: r.Supervisor, entries: r.Entries}
	}
	return mergeStatus(views, leases, now)
}

// refusalOf describes what a ClusterMembership refuses to import; "" when
// nothing.
func refusalOf(m *federationv1alpha1.ClusterMembership) string {
	if m == nil || m.Spec.Imports == nil {
		return ""
	}
	var parts []string
	if ids := m.Spec.Imports.RefuseFrom; len(ids) > 0 {
		parts = append(parts, strings.Join(ids, ", "))
	}
	if sel := m.Spec.Imports.RefuseFromSelector; sel != nil {
		parts = append(parts, "members matching "+metav1.FormatLabelSelector(sel))
	}
	return strings.Join(parts, "; ")
}
