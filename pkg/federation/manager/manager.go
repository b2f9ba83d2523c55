package manager

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/budget"
	"antreaplus.io/antreaplus/pkg/federation/election"
)

// Options configure a federation manager.
type Options struct {
	// Namespace holds the registry.
	Namespace string
	// Election are the Lease timings.
	Election election.Config
	// UnreachableGrace is how long no supervisor may reach a member before
	// the member is marked unreachable from the federation.
	UnreachableGrace time.Duration
	// StatusPeriod is how often registry status is refreshed.
	StatusPeriod time.Duration
	// LeaderControllers run for every member this manager leads.
	LeaderControllers []LeaderController
	// Budget bounds their reconciles over every member led, and narrows
	// while a renewal is late (package budget). A zero LateAfter is half
	// the election's retry period.
	Budget budget.Config
}

// DefaultOptions are the settings of a production manager.
func DefaultOptions() Options {
	return Options{
		Namespace:        federationv1alpha1.SystemNamespace,
		Election:         election.DefaultConfig(),
		UnreachableGrace: 60 * time.Second,
		StatusPeriod:     5 * time.Second,
		// No limit: measured at 10 members, a budget of 8 per CPU did not
		// change how often leaders changed and slowed a burst of imports
		// 2x (docs/scale.md, "A budget of reconciles, 2026-12-02").
		Budget: budget.Config{Floor: 2},
	}
}

// Manager is one supervisor's federation manager.
type Manager struct {
	opts Options
	me   string
	// budget is shared by the elections and the leader controllers of
	// every member (nil when opts.Budget has no limit).
	budget   *budget.Budget
	local    client.Client
	localCfg *rest.Config
	started  time.Time

	mu       sync.Mutex
	sessions map[string]*session
	// members is the registry as last reconciled, by clusterID.
	members map[string]federationv1alpha1.MemberClusterSpec
	// labels are the registry entries' labels, by clusterID: what export
	// scopes and refusals select.
	labels map[string]map[string]string
	// changes counts the changes of sessions and labels (under mu): a
	// change makes Members compute its view again at once.
	changes uint64
	// registryChanges counts the changes of the registry's members and
	// supervisors (under mu): what the plan is computed from.
	registryChanges uint64

	// plans is the last plan computed (plan.go).
	plans planCache

	// probeFlips counts the probes of any member whose outcome changed.
	probeFlips atomic.Uint64

	// view is Members' last answer (membersFresh).
	view struct {
		mu      sync.Mutex
		at      time.Time
		changes uint64
		flips   uint64
		members []MemberInfo
		// version counts the computed views that differed from the last.
		version uint64
	}
}

// New returns the manager of supervisor me, writing its registry through local.
func New(opts Options, me string, local client.Client, localCfg *rest.Config) *Manager {
	var b *budget.Budget
	if opts.Budget.Limit > 0 {
		if opts.Budget.LateAfter <= 0 {
			opts.Budget.LateAfter = opts.Election.RetryPeriod / 2
		}
		b = budget.New(opts.Budget)
	}
	return &Manager{
		budget: b, opts: opts, me: me, local: local, localCfg: localCfg, started: time.Now(),
		sessions: map[string]*session{}, members: map[string]federationv1alpha1.MemberClusterSpec{},
		labels: map[string]map[string]string{},
	}
}

// SetupWithManager registers the registry controller, the heartbeat and the status loop.
func (m *Manager) SetupWithManager(mgr ctrl.Manager) error {
	if err := m.setupRegistryController(mgr); err != nil {
		return err
	}
	if err := mgr.Add(heartbeat{m: m}); err != nil {
		return err
	}
	return mgr.Add(statusLoop{m: m})
}

// Rank implements election.Peers: my rank for member among live supervisors.
func (m *Manager) Rank(member string) (int, string) {
	plan := m.plan()
	return plan.Rank(member, m.me), plan.Preferred(member)
}

// Alive implements election.Peers: whether a supervisor's manager is
// alive (its heartbeat changed within LeaseDuration, and not released).
func (m *Manager) Alive(supervisor string) bool {
	if supervisor == m.me {
		return true
	}
	changed, seen, released := m.heartbeat(supervisor)
	return seen && !released && time.Since(changed) < m.opts.Election.LeaseDuration
}

var _ election.StoppedPeers = (*Manager)(nil)

// StopsAt implements election.StoppedPeers: a supervisor counts as
// stopped once its heartbeat, seen to change at some moment, has not
// changed again for election.Config.LateAfter (it beats every renewal
// period), and from the moment it was released (its manager shut down).
// Zero for this manager, and for a supervisor never heard from.
func (m *Manager) StopsAt(supervisor string) time.Time {
	if supervisor == m.me {
		return time.Time{}
	}
	changed, seen, released := m.heartbeat(supervisor)
	switch {
	case !seen:
		return time.Time{}
	case released:
		return changed
	}
	return changed.Add(m.opts.Election.LateAfter())
}

// heartbeat is what a supervisor's session saw of its heartbeat (session.heartbeat).
func (m *Manager) heartbeat(supervisor string) (changedAt time.Time, seen, released bool) {
	m.mu.Lock()
	s := m.sessions[supervisor]
	m.mu.Unlock()
	if s == nil {
		return time.Time{}, false, false
	}
	return s.heartbeat()
}

// pokeAll asks every elector for a round now: a supervisor left or came
// back, so the plan's ranks changed.
func (m *Manager) pokeAll() {
	for _, s := range m.snapshot() {
		if s.elector != nil {
			s.elector.Poke()
		}
	}
}

// snapshot returns the current sessions sorted by member.
func (m *Manager) snapshot() []*session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].clusterID < out[j].clusterID })
	return out
}

// Leading lists the members this manager leads now.
func (m *Manager) Leading() []string {
	var out []string
	for _, s := range m.snapshot() {
		if s.elector != nil {
			if s.elector.Status().Leading {
				out = append(out, s.clusterID)
			}
		}
	}
	return out
}

// stopAll ends every session (on shutdown).
func (m *Manager) stopAll() {
	for _, s := range m.snapshot() {
		s.stop()
	}
}
