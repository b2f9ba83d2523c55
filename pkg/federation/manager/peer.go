package manager

import (
	"context"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/health"
)

// peerView is what this manager sees of another supervisor: its manager's
// heartbeat and its registry's reports on the members.
type peerView struct {
	mu          sync.Mutex
	version     string
	changedAt   time.Time
	reports     map[string]health.View
	reportsRead time.Time
}

// heartbeatAge is how long ago the supervisor's heartbeat last changed;
// false while it was never seen.
func (s *session) heartbeatAge() (time.Duration, bool) {
	at, seen := s.heartbeatChangedAt()
	return time.Since(at), seen
}

// heartbeatChangedAt is when the supervisor's heartbeat was last seen to
// change; false while it was never seen.
func (s *session) heartbeatChangedAt() (time.Time, bool) {
	s.peer.mu.Lock()
	defer s.peer.mu.Unlock()
	return s.peer.changedAt, !s.peer.changedAt.IsZero()
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
		if l, err := s.readPeerLease(ctx, cs); err == nil {
			s.peer.mu.Lock()
			if l.ResourceVersion != s.peer.version {
				// When its watch delivered it, if it did: up to a retry
				// period before this read.
				s.peer.version, s.peer.changedAt = l.ResourceVersion, s.peerLease.seenAt(l.ResourceVersion, time.Now())
			}
			s.peer.mu.Unlock()
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
