package manager

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/election"
	"antreaplus.io/antreaplus/pkg/federation/health"
)

// The federation manager writes its registry's status.
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=memberclusters/status,verbs=update,namespace=antreaplus-system

// statusLoop writes the registry status of every member each status period.
type statusLoop struct{ m *Manager }

// Start implements manager.Runnable.
func (l statusLoop) Start(ctx context.Context) error {
	t := time.NewTicker(l.m.opts.StatusPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		sessions := l.m.snapshot()
		for _, s := range sessions {
			if err := l.m.writeStatus(ctx, s, sessions); err != nil && !apierrors.IsConflict(err) {
				log.FromContext(ctx).V(1).Info("Writing member status failed", "member", s.clusterID, "err", err)
			}
		}
	}
}

// NeedLeaderElection implements LeaderElectionRunnable.
func (statusLoop) NeedLeaderElection() bool { return false }

// writeStatus updates a member's registry status when it changed (within a
// status period of the change), or when its report is due for a refresh
// (reportRefresh); peers are every session (a snapshot), whose reports of
// the member it reads.
func (m *Manager) writeStatus(ctx context.Context, s *session, peers []*session) error {
	mc := &federationv1alpha1.MemberCluster{}
	if err := m.local.Get(ctx, client.ObjectKey{Namespace: m.opts.Namespace, Name: s.clusterID}, mc); err != nil {
		return client.IgnoreNotFound(err)
	}
	now := time.Now()
	desired := desiredStatus(m.statusInput(s, peers, now), mc.Status, mc.Generation)
	due := mc.Status.LastProbeTime == nil || now.Sub(mc.Status.LastProbeTime.Time) >= m.reportRefresh()
	if !due && sameStatus(mc.Status, desired) {
		return nil
	}
	mc.Status = desired
	err := m.local.Status().Update(ctx, mc)
	result := "ok"
	if err != nil {
		result = "error"
	}
	statusWrites.WithLabelValues(result).Inc()
	return err
}

// statusInput gathers what this manager knows of a member.
type statusInput struct {
	me            string
	now           time.Time
	grace         time.Duration
	leaseDuration time.Duration
	reachable     bool
	lastOK        time.Time
	lastErr       error
	lease         election.LeaseStatus
	views         []health.View
	registered    time.Time
}

// statusInput is what this manager knows of the member of s at now, with
// the reports of it by the supervisors among peers (a snapshot of the
// sessions, taken once by a caller that asks for every member).
func (m *Manager) statusInput(s *session, peers []*session, now time.Time) statusInput {
	// A manager that just started has not probed yet: it counts the member as
	// seen at its own start, so a restart never marks members unreachable.
	registered := s.created
	if m.started.After(registered) {
		registered = m.started
	}
	in := statusInput{me: m.me, now: now, grace: m.opts.UnreachableGrace, leaseDuration: m.opts.Election.LeaseDuration, registered: registered}
	if s.setupErr != nil {
		in.lastErr = s.setupErr
	} else {
		lastOK, lastTime, lastErr := s.probe.get()
		in.lastOK, in.lastErr = lastOK, lastErr
		in.reachable = lastErr == nil && !lastTime.IsZero() && now.Sub(lastTime) < m.opts.Election.LateAfter()
		if lastTime.IsZero() {
			in.lastErr = errors.New("not probed yet")
		}
		in.lease = s.elector.Status()
	}
	in.views = []health.View{{Supervisor: m.me, Reachable: in.reachable, LastReachable: in.lastOK, ReportedAt: now}}
	for _, p := range peers {
		if p.clusterID == m.me || !p.spec.Supervisor {
			continue
		}
		if v, ok := p.report(s.clusterID); ok && v.Supervisor != m.me {
			in.views = append(in.views, m.confirmedReport(p, v, now))
		}
	}
	if in.reachable {
		reachableGauge.WithLabelValues(s.clusterID).Set(1)
	} else {
		reachableGauge.WithLabelValues(s.clusterID).Set(0)
	}
	return in
}

// reportRefresh is how long a manager leaves a member's registry status
// unwritten while it does not change: half the grace, so that a report
// read every status period is never older than the grace (a reader that
// does not know heartbeats, confirmedReport, still counts it), and at
// least two status periods. A change is written at the next status period.
//
// Before, every report was rewritten every two status periods: F/10
// writes a second into each supervisor's registry at idle, with F members
// (docs/scale.md, "Registry reports written on change, 2026-12-06").
func (m *Manager) reportRefresh() time.Duration {
	return max(m.opts.UnreachableGrace/2, 2*m.opts.StatusPeriod)
}

// confirmedReport is another supervisor's report v, read from its registry,
// as of the last time that supervisor was seen alive. Its manager writes a
// change of the report within a status period (two, to allow for a slow
// pass over every member), and its registry is read every status period:
// while its heartbeat beats, the report read still says what it thinks
// at confirmed = (the heartbeat's last change, or the last read if
// earlier) - 2 status periods - a status period. A reachable report then
// also says that the supervisor reached the member within LateAfter of
// confirmed (statusInput's reachable), so its LastReachable is at least
// that. Confirmation needs a report no older than the grace itself: a
// manager whose heartbeat beats but whose reports stopped (its status
// loop stuck) stops vouching after the grace, as it did before.
func (m *Manager) confirmedReport(p *session, v health.View, now time.Time) health.View {
	changedAt, seen, released := p.heartbeat()
	p.peer.mu.Lock()
	read := p.peer.reportsRead
	p.peer.mu.Unlock()
	return confirmReport(v, peerSeen{heartbeat: changedAt, beating: seen && !released, read: read}, now, reportTiming{
		statusPeriod: m.opts.StatusPeriod, grace: m.opts.UnreachableGrace, lateAfter: m.opts.Election.LateAfter()})
}

// peerSeen is what a session saw of another supervisor: when its
// heartbeat last changed, whether it beats (seen, not released), and when
// its registry was last read.
type peerSeen struct {
	heartbeat time.Time
	beating   bool
	read      time.Time
}

// reportTiming are the periods confirmReport reasons with.
type reportTiming struct {
	statusPeriod, grace, lateAfter time.Duration
}

// confirmReport moves a report's times to what a live writer's silence
// confirms (confirmedReport). It is pure.
func confirmReport(v health.View, p peerSeen, now time.Time, c reportTiming) health.View {
	if !p.beating || now.Sub(v.ReportedAt) > c.grace || now.Sub(p.heartbeat) > c.lateAfter {
		return v
	}
	last := p.heartbeat
	if p.read.Before(last) {
		last = p.read
	}
	confirmed := last.Add(-3 * c.statusPeriod)
	if confirmed.After(v.ReportedAt) {
		v.ReportedAt = confirmed
	}
	if at := confirmed.Add(-c.lateAfter); v.Reachable && at.After(v.LastReachable) {
		v.LastReachable = at
	}
	return v
}

// desiredStatus is the registry status a manager reports for a member. It is pure.
func desiredStatus(in statusInput, old federationv1alpha1.MemberClusterStatus, generation int64) federationv1alpha1.MemberClusterStatus {
	verdict := health.Assess(in.views, in.now, in.grace, in.registered)
	st := federationv1alpha1.MemberClusterStatus{
		Reachable: in.reachable, ReportedBy: in.me, ObservedGeneration: generation,
		LastProbeTime: &metav1.Time{Time: in.now.Truncate(time.Second)},
		Conditions:    append([]metav1.Condition(nil), old.Conditions...),
	}
	if !in.lastOK.IsZero() {
		st.LastReachableTime = &metav1.Time{Time: in.lastOK.Truncate(time.Second)}
	}
	if in.lastErr != nil {
		st.LastError = truncate(in.lastErr.Error(), 1024)
	}
	if verdict.Unreachable {
		st.UnreachableSince = &metav1.Time{Time: verdict.LastSeen.Truncate(time.Second)}
	}
	led := in.lease.Holder != "" && in.reachable && in.now.Sub(in.lease.RenewTime) < in.leaseDuration+2*time.Second
	if led {
		st.Leader, st.LeaderTerm = in.lease.Holder, in.lease.Term
		st.LeaseRenewTime = &metav1.MicroTime{Time: in.lease.RenewTime}
		if !in.lease.AcquireTime.IsZero() {
			st.LeaderSince = &metav1.MicroTime{Time: in.lease.AcquireTime}
		}
	}

	set := func(t string, ok bool, reason, msg string) {
		status := metav1.ConditionFalse
		if ok {
			status = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: t, Status: status, Reason: reason, Message: msg, ObservedGeneration: generation})
	}
	switch {
	case in.reachable:
		set(federationv1alpha1.MemberReachable, true, "Probed", "reached by "+joinOr(verdict.ReachableBy, in.me))
	case verdict.Unreachable:
		set(federationv1alpha1.MemberReachable, false, federationv1alpha1.ReasonUnreachableFromAllSupervisors,
			"no supervisor reached the member since "+verdict.LastSeen.UTC().Format(time.RFC3339)+"; its exports may be withdrawn. Last error here: "+st.LastError)
	default:
		set(federationv1alpha1.MemberReachable, false, federationv1alpha1.ReasonProbeFailed, "this supervisor cannot reach the member: "+st.LastError)
	}
	credOK, credReason, credMsg := credentialsVerdict(in)
	set(federationv1alpha1.MemberCredentialsValid, credOK, credReason, credMsg)
	if led {
		set(federationv1alpha1.MemberLed, true, "LeaseHeld", fmt.Sprintf("led by %s (term %d)", in.lease.Holder, in.lease.Term))
	} else {
		set(federationv1alpha1.MemberLed, false, federationv1alpha1.ReasonNoLeader, "no supervisor renews the member's leader Lease")
	}
	ready := in.reachable && led && credOK
	msg := "reachable, led and credentials accepted"
	if !ready {
		msg = "see the Reachable, Led and CredentialsValid conditions"
	}
	set(federationv1alpha1.MemberReady, ready, map[bool]string{true: "Ready", false: "NotReady"}[ready], msg)
	return st
}

// credentialsVerdict tells whether the member accepted the credentials.
func credentialsVerdict(in statusInput) (bool, string, string) {
	var ce *credentialError
	switch {
	case errors.As(in.lastErr, &ce):
		return false, ce.reason, ce.msg
	case apierrors.IsUnauthorized(in.lastErr) || apierrors.IsForbidden(in.lastErr):
		return false, federationv1alpha1.ReasonUnauthorized,
			"the member refused the federation credentials (" + truncate(in.lastErr.Error(), 200) + "): they may be expired or revoked; join the member again with 'antreaplus federation join'"
	case in.reachable:
		return true, "Accepted", "the member accepted the federation credentials"
	default:
		return true, "NotRefused", "the member has not refused the credentials (it is not reachable to check)"
	}
}

// sameStatus compares two statuses, ignoring timestamps that move on every probe.
func sameStatus(a, b federationv1alpha1.MemberClusterStatus) bool {
	strip := func(s federationv1alpha1.MemberClusterStatus) federationv1alpha1.MemberClusterStatus {
		s = *s.DeepCopy()
		s.LastProbeTime, s.LastReachableTime, s.LeaseRenewTime = nil, nil, nil
		for i := range s.Conditions {
			s.Conditions[i].LastTransitionTime = metav1.Time{}
		}
		return s
	}
	return equality.Semantic.DeepEqual(strip(a), strip(b))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

func joinOr(xs []string, fallback string) string {
	if len(xs) == 0 {
		return fallback
	}
	out := xs[0]
	for _, x := range xs[1:] {
		out += ", " + x
	}
	return out
}
