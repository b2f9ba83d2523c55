package pollstatus

import (
	"maps"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// Key is one region of one account.
type Key struct {
	Account types.NamespacedName
	Region  string
}

// Outcome is what one poll of one region came to.
type Outcome struct {
	// Reason is cloudv1alpha1.AccountReasonPolled on success, else Throttled,
	// AuthenticationFailed, RegionUnavailable or PollFailed.
	Reason string
	// Message is the cloud's error; empty on success.
	Message string
	// ApplyError is why writing the imported objects failed, after a
	// successful poll.
	ApplyError string
	// Selector is the selector the poll imported for; zero when the account
	// has none (the poll only checked the credentials).
	Selector types.NamespacedName
	// ProviderGeneration identifies the provider (credentials) polled with.
	ProviderGeneration int64
	// Writes is the number of API writes the poll made. It is not kept
	// between polls.
	Writes int
	// Partial: the poll read the VMs but not every kind of service
	// (Reason and Message say which and why); the objects of the others
	// were kept.
	Partial bool
}

// Succeeded reports whether the poll read the region.
func (o Outcome) Succeeded() bool { return o.Reason == cloudv1alpha1.AccountReasonPolled }

// Result is the last outcome of a region with its history.
type Result struct {
	Outcome
	// At is when the last poll ended.
	At time.Time
	// LastSuccess is when a poll of the region last succeeded.
	LastSuccess time.Time
	// Failures counts the polls that failed since the last success.
	Failures int
}

// Store holds the last result of every region. It is safe for concurrent
// use.
type Store struct {
	heartbeat time.Duration

	mu       sync.Mutex
	results  map[Key]Result
	reported map[Key]time.Time // the LastSuccess last announced

	accounts  chan event.GenericEvent
	selectors chan event.GenericEvent
}

// New returns an empty store that announces a success again when the last
// announced one is older than heartbeat (0: never).
func New(heartbeat time.Duration) *Store {
	return &Store{
		heartbeat: heartbeat,
		results:   map[Key]Result{},
		reported:  map[Key]time.Time{},
		accounts:  make(chan event.GenericEvent, 1024),
		selectors: make(chan event.GenericEvent, 1024),
	}
}

// AccountEvents carries a CloudProviderAccount (name and namespace only)
// whenever the status of one of its regions changed.
func (s *Store) AccountEvents() <-chan event.GenericEvent { return s.accounts }

// SelectorEvents carries a CloudEntitySelector (name and namespace only)
// whenever a poll for it changed what it imported or how it went.
func (s *Store) SelectorEvents() <-chan event.GenericEvent { return s.selectors }

// Record stores the outcome of a poll that ended at now and returns the
// region's result.
func (s *Store) Record(k Key, o Outcome, now time.Time) Result {
	s.mu.Lock()
	prev, seen := s.results[k]
	r := Result{Outcome: o, At: now, LastSuccess: prev.LastSuccess}
	if o.Succeeded() {
		r.LastSuccess = now
	} else {
		r.Failures = prev.Failures + 1
	}
	s.results[k] = r
	changed := !seen || prev.Reason != o.Reason || prev.Message != o.Message || prev.Selector != o.Selector
	if o.Succeeded() && (changed || (s.heartbeat > 0 && now.Sub(s.reported[k]) >= s.heartbeat)) {
		s.reported[k] = now
		changed = true
	}
	s.mu.Unlock()

	if changed {
		s.send(s.accounts, account(k.Account))
	}
	if (changed || o.Writes > 0 || prev.ApplyError != o.ApplyError) && o.Selector.Name != "" {
		s.send(s.selectors, selector(o.Selector))
	}
	if seen && prev.Selector != o.Selector && prev.Selector.Name != "" {
		s.send(s.selectors, selector(prev.Selector))
	}
	return r
}

// Get returns the result of a region.
func (s *Store) Get(k Key) (Result, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.results[k]
	return r, ok
}

// Regions returns the results of every region of an account polled so far.
func (s *Store) Regions(acct types.NamespacedName) map[string]Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]Result{}
	for k, r := range s.results {
		if k.Account == acct {
			out[k.Region] = r
		}
	}
	return out
}

// Forget drops the results of every region of an account but those listed.
func (s *Store) Forget(acct types.NamespacedName, keep ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keepSet := map[string]bool{}
	for _, r := range keep {
		keepSet[r] = true
	}
	maps.DeleteFunc(s.results, func(k Key, _ Result) bool { return k.Account == acct && !keepSet[k.Region] })
	maps.DeleteFunc(s.reported, func(k Key, _ time.Time) bool { return k.Account == acct && !keepSet[k.Region] })
}

// send never blocks the poller: when the buffer is full, the event waits in
// a goroutine of its own.
func (s *Store) send(ch chan event.GenericEvent, ev event.GenericEvent) {
	select {
	case ch <- ev:
	default:
		go func() { ch <- ev }()
	}
}

func account(k types.NamespacedName) event.GenericEvent {
	a := &cloudv1alpha1.CloudProviderAccount{}
	a.Name, a.Namespace = k.Name, k.Namespace
	return event.GenericEvent{Object: a}
}

func selector(k types.NamespacedName) event.GenericEvent {
	sel := &cloudv1alpha1.CloudEntitySelector{}
	sel.Name, sel.Namespace = k.Name, k.Namespace
	return event.GenericEvent{Object: sel}
}
