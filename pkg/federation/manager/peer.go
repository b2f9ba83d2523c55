package manager

import (
	"context"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/health"
)

// peerView is what this manager sees of another supervisor: its manager's
// heartbeat and its registry's reports on the members.
type peerView struct {
	mu        sync.Mutex
	version   string
	changedAt time.Time
	// released tells that its manager released its heartbeat (an empty
	// holder): it shut down and led nothing more.
	released    bool
	reports     map[string]health.View
	reportsRead time.Time
}

// heartbeat is what this session saw of the supervisor's heartbeat: when
// it last changed (seen false while never) and whether its manager
// released it as it shut down.
func (s *session) heartbeat() (changedAt time.Time, seen, released bool) {
	s.peer.mu.Lock()
	defer s.peer.mu.Unlock()
	return s.peer.changedAt, !s.peer.changedAt.IsZero(), s.peer.released
}

// notePeer records a version of the supervisor's heartbeat, read at read
// (from the watch: when it delivered it). It tells whether the manager
// has just released it, or taken it again.
func (s *session) notePeer(l *coordinationv1.Lease, read time.Time) (releasedChanged bool) {
	s.peer.mu.Lock()
	defer s.peer.mu.Unlock()
	if l.ResourceVersion != s.peer.version {
		s.peer.version, s.peer.changedAt = l.ResourceVersion, s.peerLease.seenAt(l.ResourceVersion, read)
	}
	released := ptr.Deref(l.Spec.HolderIdentity, "") == ""
	releasedChanged = released != s.peer.released
	s.peer.released = released
	return releasedChanged
}

// report returns the supervisor's last report on member, if any.
func (s *session) report(member string) (health.View, bool) {
	s.peer.mu.Lock()
	defer s.peer.mu.Unlock()
	v, ok := s.peer.reports[member]
	return v, ok
}

// peerLoop follows a supervisor member's heartbeat every retry period and
// its registry every status period.
func (s *session) peerLoop(ctx context.Context, cs kubernetes.Interface) {
	retry := time.NewTicker(s.m.opts.Election.RetryPeriod)
	defer retry.Stop()
	for {
		if l, err := s.readPeerLease(ctx, cs); err == nil && s.notePeer(l, time.Now()) {
			s.m.pokeAll()
		}
		s.peer.mu.Lock()
		due := time.Since(s.peer.reportsRead) >= s.m.opts.StatusPeriod
		s.peer.mu.Unlock()
		if due {
			s.readReports(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-retry.C:
		}
	}
}

// readPeerLease reads the supervisor's manager Lease: from its watch while
// fresh (the manager writes it every renewal period), else from the API server.
func (s *session) readPeerLease(ctx context.Context, cs kubernetes.Interface) (*coordinationv1.Lease, error) {
	if l, err, ok := s.peerLease.current(); ok {
		leaseReads.WithLabelValues(s.clusterID, leaseReadWatch).Inc()
		return l, err
	}
	leaseReads.WithLabelValues(s.clusterID, leaseReadAPI).Inc()
	return cs.CoordinationV1().Leases(federationv1alpha1.SystemNamespace).Get(ctx, federationv1alpha1.ManagerLease, metav1.GetOptions{})
}

// readReports reads the supervisor's registry status of every member.
func (s *session) readReports(ctx context.Context) {
	list := &federationv1alpha1.MemberClusterList{}
	member, _ := s.currentMember()
	if err := member.GetAPIReader().List(ctx, list, client.InNamespace(federationv1alpha1.SystemNamespace)); err != nil {
		return
	}
	reports := make(map[string]health.View, len(list.Items))
	for _, mc := range list.Items {
		st := mc.Status
		if st.ReportedBy == "" || st.LastProbeTime == nil {
			continue
		}
		v := health.View{Supervisor: st.ReportedBy, Reachable: st.Reachable, ReportedAt: st.LastProbeTime.Time}
		if st.LastReachableTime != nil {
			v.LastReachable = st.LastReachableTime.Time
		}
		reports[mc.Spec.ClusterID] = v
	}
	s.peer.mu.Lock()
	s.peer.reports, s.peer.reportsRead = reports, time.Now()
	s.peer.mu.Unlock()
}
