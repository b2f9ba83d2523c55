package membership

import (
	"context"
	"errors"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// statusTimeout bounds each request Status makes, so that one dead cluster
// does not hold up the report.
const statusTimeout = 5 * time.Second

// FederationStatus is the federation as its supervisors' registries show it.
type FederationStatus struct {
	FederationID string             `json:"federationID"`
	Members      []MemberStatus     `json:"members"`
	Supervisors  []SupervisorStatus `json:"supervisors"`
	// Problems are one line each, saying what is wrong and what to do.
	Problems []string `json:"problems"`
}

// MemberStatus is one member, merged from every registry that lists it.
type MemberStatus struct {
	ClusterID  string `json:"clusterID"`
	Supervisor bool   `json:"supervisor"`
	// Leader is the clusterID of the supervisor leading the member, "" when none.
	Leader string `json:"leader"`
	// Ready is the Ready condition of the freshest report.
	Ready     bool              `json:"ready"`
	Reachable bool              `json:"reachable"`
	Server    string            `json:"server"`
	Labels    map[string]string `json:"labels,omitempty"`
	// ReportedBy is the supervisor whose report is the freshest.
	ReportedBy       string            `json:"reportedBy,omitempty"`
	LastProbeTime    *metav1.Time      `json:"lastProbeTime,omitempty"`
	LastError        string            `json:"lastError,omitempty"`
	UnreachableSince *metav1.Time      `json:"unreachableSince,omitempty"`
	LeaseRenewTime   *metav1.MicroTime `json:"leaseRenewTime,omitempty"`
	// LeaderTerm is the leader Lease's leaseTransitions: one more at each
	// change of leader since the member joined.
	LeaderTerm int32 `json:"leaderTerm,omitempty"`
	// LeaderSince is when the current leader took the member.
	LeaderSince *metav1.MicroTime  `json:"leaderSince,omitempty"`
	LeaseHolder string             `json:"leaseHolder,omitempty"`
	LeaseSource string             `json:"leaseSource,omitempty"`
	Conditions  []metav1.Condition `json:"conditions,omitempty"`
	// Refuses is what the member refuses to import (its ClusterMembership's
	// spec.imports), "" when nothing.
	Refuses string `json:"refuses,omitempty"`
	// RegisteredIn are the contexts of the supervisors whose registry lists the member.
	RegisteredIn []string `json:"registeredIn"`
	Problems     []string `json:"problems,omitempty"`
}

// Where a member's lease information comes from.
const (
	LeaseFromMember   = "member"   // its Lease, read in the member itself
	LeaseFromRegistry = "registry" // the freshest registry report
)

// SupervisorStatus is one supervisor as Status reached it.
type SupervisorStatus struct {
	Context      string `json:"context"`
	ClusterID    string `json:"clusterID,omitempty"`
	FederationID string `json:"federationID,omitempty"`
	Server       string `json:"server"`
	Reachable    bool   `json:"reachable"`
	Error        string `json:"error,omitempty"`
	// Members is the number of entries in its registry.
	Members int `json:"members"`
}

// Status reads the registry of every supervisor (concurrently; those that
// do not answer are reported as problems) and merges them per member. For
// the members given by cluster ID, it reads their leader Lease directly.
func Status(ctx context.Context, supervisors []Cluster, members map[string]Cluster) (*FederationStatus, error) {
	if len(supervisors) == 0 {
		return nil, errors.New("no supervisor given: create a federation with 'antreaplus federation create --federation-id ID --supervisor CONTEXT'")
	}
	views := make([]registryView, len(supervisors))
	leases := map[string]leaseView{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, s := range supervisors {
		wg.Go(func() { views[i] = readView(ctx, s) })
	}
	for id, m := range members {
		wg.Go(func() {
			l := readLease(ctx, m)
			mu.Lock()
			leases[id] = l
			mu.Unlock()
		})
	}
	wg.Wait()
	return mergeStatus(views, leases, time.Now()), nil
}

// readView reads one supervisor's identity and registry.
func readView(ctx context.Context, s Cluster) registryView {
	v := registryView{supervisor: SupervisorStatus{Context: s.Name, Server: s.Config.Host}}
	cl, err := s.clientWithTimeout(statusTimeout)
	if err == nil {
		if m, merr := readMembership(ctx, s, cl); merr == nil && m != nil {
			v.supervisor.ClusterID, v.supervisor.FederationID = m.Spec.ClusterID, m.Spec.FederationID
		}
		v.entries, err = listRegistry(ctx, s, cl)
	}
	if err != nil {
		v.supervisor.Error = err.Error()
		return v
	}
	v.supervisor.Reachable, v.supervisor.Members = true, len(v.entries)
	return v
}

// readLease reads a member's leader Lease in the member, and what its
// ClusterMembership refuses.
func readLease(ctx context.Context, m Cluster) leaseView {
	cl, err := m.clientWithTimeout(statusTimeout)
	if err != nil {
		return leaseView{err: err}
	}
	lease := &coordinationv1.Lease{}
	err = cl.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease}, lease)
	switch {
	case apierrors.IsNotFound(err):
		return leaseView{read: true}
	case err != nil:
		return leaseView{err: err}
	}
	mem := &federationv1alpha1.ClusterMembership{}
	if err := cl.Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, mem); err != nil {
		mem = nil
	}
	return LeaseOf(lease, mem)
}
