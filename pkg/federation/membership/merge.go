package membership

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// registryView is one supervisor's registry as Status read it.
type registryView struct {
	supervisor SupervisorStatus
	entries    []federationv1alpha1.MemberCluster
}

// leaseView is a member's leader Lease as read in the member.
type leaseView struct {
	read      bool // false when the Lease could not be read
	err       error
	holder    string
	renewTime *metav1.MicroTime
	duration  time.Duration
	// term is the Lease's leaseTransitions; since its acquireTime.
	term  int32
	since *metav1.MicroTime
	// refuses is what the member's ClusterMembership refuses to import.
	refuses string
}

// report is one supervisor's registry entry for a member.
type report struct {
	supervisor string
	entry      federationv1alpha1.MemberCluster
}

// mergeStatus merges the registries of several supervisors into one view
// of the federation: per member the freshest report (by lastProbeTime), its
// Lease when read directly, and every problem found.
func mergeStatus(views []registryView, leases map[string]leaseView, now time.Time) *FederationStatus {
	st := &FederationStatus{Members: []MemberStatus{}, Supervisors: []SupervisorStatus{}, Problems: []string{}}
	byID := map[string][]report{}
	var reachable []string
	for _, v := range views {
		st.Supervisors = append(st.Supervisors, v.supervisor)
		st.Problems = append(st.Problems, supervisorProblems(st, v.supervisor)...)
		if !v.supervisor.Reachable {
			continue
		}
		reachable = append(reachable, v.supervisor.Context)
		for _, e := range v.entries {
			byID[e.Spec.ClusterID] = append(byID[e.Spec.ClusterID], report{supervisor: v.supervisor.Context, entry: e})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		m := mergeMember(byID[id], reachable, leases, now)
		st.Members = append(st.Members, m)
		for _, p := range m.Problems {
			st.Problems = append(st.Problems, id+": "+p)
		}
	}
	st.Problems = append(st.Problems, unqueriedSupervisors(views, byID)...)
	return st
}

// supervisorProblems records the federation ID and reports a supervisor
// that did not answer or disagrees on the federation.
func supervisorProblems(st *FederationStatus, s SupervisorStatus) []string {
	switch {
	case !s.Reachable:
		return []string{fmt.Sprintf("supervisor %s did not answer (%s): its registry is not shown; check that its API server %s is up", s.Context, s.Error, s.Server)}
	case s.FederationID == "":
		return []string{fmt.Sprintf("%s is not a supervisor (it has no ClusterMembership): make it one with 'antreaplus federation create --supervisor %s'", s.Context, s.Context)}
	case st.FederationID == "":
		st.FederationID = s.FederationID
	case st.FederationID != s.FederationID:
		return []string{fmt.Sprintf("supervisor %s belongs to federation %s, not %s: choose one with --federation-id", s.Context, s.FederationID, st.FederationID)}
	}
	return nil
}

// mergeMember builds one member's status from the reports of every registry.
func mergeMember(reports []report, reachable []string, leases map[string]leaseView, now time.Time) MemberStatus {
	fresh := freshest(reports)
	e := fresh.entry
	m := MemberStatus{
		ClusterID: e.Spec.ClusterID, Supervisor: e.Spec.Supervisor, Server: e.Spec.Server,
		Labels: userLabels(e.Labels), Leader: e.Status.Leader, Reachable: e.Status.Reachable,
		Ready:      meta.IsStatusConditionTrue(e.Status.Conditions, federationv1alpha1.MemberReady),
		ReportedBy: e.Status.ReportedBy, LastProbeTime: e.Status.LastProbeTime, LastError: e.Status.LastError,
		UnreachableSince: e.Status.UnreachableSince, LeaseRenewTime: e.Status.LeaseRenewTime,
		LeaderTerm: e.Status.LeaderTerm, LeaderSince: e.Status.LeaderSince,
		Conditions: e.Status.Conditions, LeaseSource: LeaseFromRegistry, RegisteredIn: []string{},
	}
	if m.ReportedBy == "" && m.LastProbeTime != nil {
		m.ReportedBy = fresh.supervisor
	}
	for _, r := range reports {
		m.RegisteredIn = append(m.RegisteredIn, r.supervisor)
	}
	m.Problems = append(m.Problems, registryProblems(reports, reachable)...)
	if l, ok := leases[m.ClusterID]; ok {
		m.Problems = append(m.Problems, applyLease(&m, l, now)...)
	}
	m.Problems = append(m.Problems, healthProblems(m, e)...)
	return m
}

// freshest is the report with the latest lastProbeTime; the first on a tie.
func freshest(reports []report) report {
	best := reports[0]
	for _, r := range reports[1:] {
		if probeTime(r).After(probeTime(best)) {
			best = r
		}
	}
	return best
}

func probeTime(r report) time.Time {
	if t := r.entry.Status.LastProbeTime; t != nil {
		return t.Time
	}
	return time.Time{}
}

// registryProblems reports registries that lack the member or disagree on it.
func registryProblems(reports []report, reachable []string) []string {
	var out []string
	first := reports[0]
	for _, r := range reports[1:] {
		if !sameServer(r.entry.Spec.Server, first.entry.Spec.Server) || r.entry.Spec.Supervisor != first.entry.Spec.Supervisor {
			out = append(out, fmt.Sprintf("the registries disagree: %s has server %s (supervisor: %t), %s has %s (supervisor: %t): join the member again to correct them",
				first.supervisor, first.entry.Spec.Server, first.entry.Spec.Supervisor, r.supervisor, r.entry.Spec.Server, r.entry.Spec.Supervisor))
		}
	}
	for _, s := range reachable {
		listed := slices.ContainsFunc(reports, func(r report) bool { return r.supervisor == s })
		if !listed {
			out = append(out, fmt.Sprintf("missing from the registry of supervisor %s: join the member again to register it there", s))
		}
	}
	return out
}

// applyLease takes the leader from the member's own Lease.
func applyLease(m *MemberStatus, l leaseView, now time.Time) []string {
	if !l.read {
		return []string{fmt.Sprintf("its leader Lease could not be read (%v); the leader shown is the registry's", l.err)}
	}
	m.LeaseSource, m.LeaseHolder, m.LeaseRenewTime, m.Leader = LeaseFromMember, l.holder, l.renewTime, ""
	m.LeaderTerm, m.LeaderSince, m.Refuses = l.term, l.since, l.refuses
	if l.holder == "" {
		return nil
	}
	if l.renewTime == nil || l.renewTime.Add(l.duration).Before(now) {
		return []string{fmt.Sprintf("its leader Lease %s/%s expired (last holder %s): check the federation managers of the supervisors", federationv1alpha1.SystemNamespace, federationv1alpha1.LeaderLease, l.holder)}
	}
	m.Leader = l.holder
	return nil
}

// healthProblems reports what the freshest report says is wrong.
func healthProblems(m MemberStatus, e federationv1alpha1.MemberCluster) []string {
	var out []string
	if m.LastProbeTime == nil {
		out = append(out, "no federation manager has reported on it yet: check that the federation managers run in the supervisors")
	} else if !m.Reachable {
		out = append(out, fmt.Sprintf("unreachable from %s: %s", m.ReportedBy, m.LastError))
	}
	if m.UnreachableSince != nil {
		out = append(out, fmt.Sprintf("unreachable from every supervisor since %s", m.UnreachableSince.UTC().Format(time.RFC3339)))
	}
	if c := meta.FindStatusCondition(e.Status.Conditions, federationv1alpha1.MemberCredentialsValid); c != nil && c.Status == metav1.ConditionFalse {
		out = append(out, fmt.Sprintf("credentials refused (%s: %s): renew them by joining the member again", c.Reason, c.Message))
	}
	if m.Leader == "" {
		out = append(out, "no supervisor leads it")
	}
	if c := meta.FindStatusCondition(e.Status.Conditions, federationv1alpha1.MemberReady); len(out) == 0 && c != nil && c.Status != metav1.ConditionTrue {
		out = append(out, fmt.Sprintf("not ready (%s: %s)", c.Reason, c.Message))
	}
	return out
}

// unqueriedSupervisors reports supervisors the registries name but Status did not read.
func unqueriedSupervisors(views []registryView, byID map[string][]report) []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		e := freshest(byID[id]).entry
		if !e.Spec.Supervisor {
			continue
		}
		queried := slices.ContainsFunc(views, func(v registryView) bool {
			return v.supervisor.ClusterID == id || sameServer(v.supervisor.Server, e.Spec.Server)
		})
		if !queried {
			out = append(out, fmt.Sprintf("the registry names supervisor %s at %s, but it was not queried: no kubeconfig context points at that server; add one to see its registry", id, e.Spec.Server))
		}
	}
	return out
}

func userLabels(labels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		if k != federationv1alpha1.LabelManagedBy {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
