// Package pollstats counts, at a cloud emulator, the calls each caller
// (a replica of the cloud controller) makes for each cloud account, groups
// them into poll windows and records every time two callers work on one
// account at once. The emulators (awsemu, azureemu) keep a Tracker, serve
// it on their admin API, and Fetch and Reset read it over HTTP; it is for
// tests and the sandbox only.
//
// # Callers
//
// A caller is named by the User-Agent token antreaplus-replica/<replica>
// (see ReplicaOf); a call without one comes from the caller "unknown".
//
// # Windows and overlaps
//
// Inventory (read) calls of one caller for one account and region that
// follow each other within the gap form one poll window: the window is
// open while one of its calls is being served and for gap after its last
// call ended. An overlap is a call (inventory or not) of caller X for an
// account that arrives while a window of another caller Y for the same
// account, in any region, is open: one is recorded per call and per such
// Y. Two replicas that never poll one account at once cause none, as long
// as one starts more than gap after the other stopped.
package pollstats

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// ReplicaProduct is the User-Agent product whose version names the
// replica: antreaplus-replica/<replica>.
const ReplicaProduct = "antreaplus-replica"

// Unknown is the caller of a call whose User-Agent names no replica.
const Unknown = "unknown"

// DefaultGap is the longest pause between two calls of one poll window
// when the emulator is given none.
const DefaultGap = 2 * time.Second

// MaxOverlapsKept is how many overlaps are kept per account, the first
// ones; OverlapCount counts them all.
const MaxOverlapsKept = 100

// ReplicaOf returns the replica a User-Agent names with the token
// antreaplus-replica/<replica>, anywhere in it, or Unknown. The token the
// AWS SDK's AppID option makes of "antreaplus-replica/<replica>",
// app/antreaplus-replica-<replica> (it turns "/" into "-"), is read too.
func ReplicaOf(userAgent string) string {
	for _, tok := range strings.Fields(userAgent) {
		if id, ok := strings.CutPrefix(tok, ReplicaProduct+"/"); ok && id != "" {
			return id
		}
		if id, ok := strings.CutPrefix(tok, "app/"+ReplicaProduct+"-"); ok && id != "" {
			return id
		}
	}
	return Unknown
}

// Call is one authenticated call an emulator serves.
type Call struct {
	// Account the call was made for: an access key id, a role, a service
	// principal.
	Account string
	// Region of the call, or another scope its windows are kept per (an
	// Azure subscription).
	Region string
	// Caller is the replica that made the call (ReplicaOf).
	Caller string
	// Op is the API operation, e.g. DescribeInstances.
	Op string
	// Inventory marks the read calls of a poll, which form windows.
	Inventory bool
}

// Stats is what a Tracker counted, as the admin API returns it.
type Stats struct {
	// GapSeconds is the gap that separates windows.
	GapSeconds float64 `json:"gapSeconds"`
	// Accounts by account name.
	Accounts map[string]AccountStats `json:"accounts"`
}

// AccountStats are the counts of one account.
type AccountStats struct {
	// Calls per caller, every call counted.
	Calls map[string]int `json:"calls"`
	// Windows per caller, over every region.
	Windows map[string]int `json:"windows"`
	// RegionWindows are the windows per region, then per caller.
	RegionWindows map[string]map[string]int `json:"regionWindows"`
	// OverlapCount is the number of overlaps.
	OverlapCount int `json:"overlapCount"`
	// Overlaps are the first MaxOverlapsKept overlaps, oldest first.
	Overlaps []Overlap `json:"overlaps"`
}

// Overlap is a call of Callers[0] that arrived while a window of
// Callers[1] for the same account was open.
type Overlap struct {
	Callers [2]string `json:"callers"`
	// At is when the call arrived.
	At time.Time `json:"at"`
	// Region and Op are the call's; OpenRegion is the region of the other
	// caller's window.
	Region     string `json:"region"`
	Op         string `json:"op"`
	OpenRegion string `json:"openRegion"`
}

// TotalOverlaps is the number of overlaps over every account.
func (s Stats) TotalOverlaps() int {
	n := 0
	for _, a := range s.Accounts {
		n += a.OverlapCount
	}
	return n
}

// Tracker counts calls, windows and overlaps. It is safe for concurrent
// use.
type Tracker struct {
	gap time.Duration
	now func() time.Time

	mu       sync.Mutex
	accounts map[string]*account
}

type account struct {
	stats   AccountStats
	windows map[windowKey]*window
}

type windowKey struct{ region, caller string }

// window is the latest window of one caller in one region.
type window struct {
	last     time.Time // when its last call began or ended
	inflight int
}

func (w *window) open(now time.Time, gap time.Duration) bool {
	return w.inflight > 0 || now.Sub(w.last) <= gap
}

// NewTracker returns a tracker whose windows end gap after their last call
// (DefaultGap if zero), reading the time from now (time.Now if nil).
func NewTracker(gap time.Duration, now func() time.Time) *Tracker {
	if gap <= 0 {
		gap = DefaultGap
	}
	if now == nil {
		now = time.Now
	}
	return &Tracker{gap: gap, now: now, accounts: map[string]*account{}}
}

// Begin records that c arrived; the returned function, which must be
// called once, records that it was answered.
func (t *Tracker) Begin(c Call) (end func()) {
	if c.Caller == "" {
		c.Caller = Unknown
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	a := t.accounts[c.Account]
	if a == nil {
		a = &account{windows: map[windowKey]*window{}, stats: AccountStats{
			Calls: map[string]int{}, Windows: map[string]int{}, RegionWindows: map[string]map[string]int{},
		}}
		t.accounts[c.Account] = a
	}
	a.stats.Calls[c.Caller]++
	t.overlaps(a, c, now)
	if !c.Inventory {
		return func() {}
	}
	k := windowKey{c.Region, c.Caller}
	w := a.windows[k]
	if w == nil || !w.open(now, t.gap) {
		w = &window{}
		a.windows[k] = w
		a.stats.Windows[c.Caller]++
		if a.stats.RegionWindows[c.Region] == nil {
			a.stats.RegionWindows[c.Region] = map[string]int{}
		}
		a.stats.RegionWindows[c.Region][c.Caller]++
	}
	w.last = now
	w.inflight++
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			w.inflight--
			w.last = t.now()
		})
	}
}

// overlaps records one overlap per other caller with an open window of
// the account. t.mu must be held.
func (t *Tracker) overlaps(a *account, c Call, now time.Time) {
	keys := slices.SortedFunc(maps.Keys(a.windows), func(x, y windowKey) int {
		return strings.Compare(x.caller+"\x00"+x.region, y.caller+"\x00"+y.region)
	})
	seen := map[string]bool{}
	for _, k := range keys {
		if k.caller == c.Caller || seen[k.caller] || !a.windows[k].open(now, t.gap) {
			continue
		}
		seen[k.caller] = true
		a.stats.OverlapCount++
		if len(a.stats.Overlaps) < MaxOverlapsKept {
			a.stats.Overlaps = append(a.stats.Overlaps, Overlap{
				Callers: [2]string{c.Caller, k.caller}, At: now, Region: c.Region, Op: c.Op, OpenRegion: k.region,
			})
		}
	}
}

// Stats returns a copy of the counts.
func (t *Tracker) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := Stats{GapSeconds: t.gap.Seconds(), Accounts: make(map[string]AccountStats, len(t.accounts))}
	for name, a := range t.accounts {
		s := a.stats
		s.Calls = maps.Clone(s.Calls)
		s.Windows = maps.Clone(s.Windows)
		s.RegionWindows = make(map[string]map[string]int, len(a.stats.RegionWindows))
		for r, w := range a.stats.RegionWindows {
			s.RegionWindows[r] = maps.Clone(w)
		}
		s.Overlaps = slices.Clone(s.Overlaps)
		if s.Overlaps == nil {
			s.Overlaps = []Overlap{}
		}
		out.Accounts[name] = s
	}
	return out
}

// Reset forgets every count and window; calls being served when it is
// called open no window again when they end.
func (t *Tracker) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.accounts = map[string]*account{}
}
