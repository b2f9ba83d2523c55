package pollstats_test

import (
	"fmt"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

// clock is a fake clock tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func TestReplicaOf(t *testing.T) {
	for _, tc := range []struct{ ua, want string }{
		{"", pollstats.Unknown},
		{"curl/8.5.0", pollstats.Unknown},
		{"aws-sdk-go-v2/1.47.7 ua/2.1 os/linux lang/go#1.25 api/ec2#1.344.1 m/C,E antreaplus-replica/cc-0", "cc-0"},
		{"antreaplus-replica/pod-7f9c azsdk-go-armcompute/v6.4.0 (go1.25; linux)", "pod-7f9c"},
		{"aws-sdk-go-v2/1.47.7 app/antreaplus-replica-cc-1", "cc-1"},
		{"antreaplus-replica/ antreaplus-replica", pollstats.Unknown},
		{"x-antreaplus-replica/a", pollstats.Unknown},
	} {
		if got := pollstats.ReplicaOf(tc.ua); got != tc.want {
			t.Errorf("ReplicaOf(%q) = %q; want %q", tc.ua, got, tc.want)
		}
	}
}

// step is one call: it arrives at ms and is answered dur ms later.
type step struct {
	ms      int
	account string
	region  string
	caller  string
	read    bool // an inventory call
	dur     int
}

func read(ms int, caller string) step {
	return step{ms: ms, account: "acct", region: "r1", caller: caller, read: true}
}

// run plays the steps in time order (an answer before an arrival at the
// same instant; a call of no duration is answered as it arrives) on a
// tracker with a gap of 2s.
func run(t *testing.T, steps []step) pollstats.Stats {
	t.Helper()
	clk := newClock()
	start := clk.Now()
	tr := pollstats.NewTracker(2*time.Second, clk.Now)
	type event struct {
		ms    int
		end   bool
		index int
	}
	var events []event
	for i, s := range steps {
		events = append(events, event{s.ms, false, i})
		if s.dur > 0 {
			events = append(events, event{s.ms + s.dur, true, i})
		}
	}
	slices.SortStableFunc(events, func(a, b event) int {
		if a.ms != b.ms {
			return a.ms - b.ms
		}
		switch {
		case a.end && !b.end:
			return -1
		case !a.end && b.end:
			return 1
		}
		return 0
	})
	ends := make([]func(), len(steps))
	for _, e := range events {
		clk.Set(start.Add(time.Duration(e.ms) * time.Millisecond))
		s := steps[e.index]
		if e.end {
			ends[e.index]()
			continue
		}
		ends[e.index] = tr.Begin(pollstats.Call{Account: s.account, Region: s.region, Caller: s.caller, Op: "Describe", Inventory: s.read})
		if s.dur == 0 {
			ends[e.index]()
		}
	}
	return tr.Stats()
}

// pairs lists the callers of an account's overlaps, "x<y" for a call of x
// in a window of y.
func pairs(a pollstats.AccountStats) string {
	var out []string
	for _, o := range a.Overlaps {
		out = append(out, o.Callers[0]+"<"+o.Callers[1])
	}
	return strings.Join(out, ",")
}

func TestWindowsAndOverlaps(t *testing.T) {
	for _, tc := range []struct {
		name     string
		steps    []step
		calls    map[string]int
		windows  map[string]int
		overlaps string
	}{
		{
			name:    "one caller, one window",
			steps:   []step{read(0, "a"), read(100, "a"), read(1900, "a"), read(3800, "a")},
			calls:   map[string]int{"a": 4},
			windows: map[string]int{"a": 1},
		},
		{
			name:    "one caller, two windows apart by more than the gap",
			steps:   []step{read(0, "a"), read(100, "a"), read(2200, "a")},
			calls:   map[string]int{"a": 3},
			windows: map[string]int{"a": 2},
		},
		{
			name:     "two callers alternating within the gap",
			steps:    []step{read(0, "a"), read(500, "b"), read(1000, "a"), read(1500, "b")},
			calls:    map[string]int{"a": 2, "b": 2},
			windows:  map[string]int{"a": 1, "b": 1},
			overlaps: "b<a,a<b,b<a",
		},
		{
			name:    "sequential windows of two callers, apart by more than the gap",
			steps:   []step{read(0, "a"), read(300, "a"), read(2400, "b"), read(2600, "b"), read(5000, "a")},
			calls:   map[string]int{"a": 3, "b": 2},
			windows: map[string]int{"a": 2, "b": 1},
		},
		{
			name:     "a call being served keeps its window open past the gap",
			steps:    []step{{ms: 0, account: "acct", region: "r1", caller: "a", read: true, dur: 5000}, read(4000, "b")},
			calls:    map[string]int{"a": 1, "b": 1},
			windows:  map[string]int{"a": 1, "b": 1},
			overlaps: "b<a",
		},
		{
			name:    "the gap counts from the end of the last call",
			steps:   []step{{ms: 0, account: "acct", region: "r1", caller: "a", read: true, dur: 1000}, read(3100, "b")},
			calls:   map[string]int{"a": 1, "b": 1},
			windows: map[string]int{"a": 1, "b": 1},
		},
		{
			name:     "windows in other regions of the account count",
			steps:    []step{read(0, "a"), {ms: 100, account: "acct", region: "r2", caller: "b", read: true}},
			calls:    map[string]int{"a": 1, "b": 1},
			windows:  map[string]int{"a": 1, "b": 1},
			overlaps: "b<a",
		},
		{
			name:    "other accounts do not",
			steps:   []step{read(0, "a"), {ms: 100, account: "other", region: "r1", caller: "b", read: true}},
			calls:   map[string]int{"a": 1},
			windows: map[string]int{"a": 1},
		},
		{
			name:     "a write overlaps a window but opens none",
			steps:    []step{read(0, "a"), {ms: 500, account: "acct", region: "r1", caller: "b"}, read(4000, "a"), {ms: 4100, account: "acct", region: "r1", caller: "b"}, read(4200, "b")},
			calls:    map[string]int{"a": 2, "b": 3},
			windows:  map[string]int{"a": 2, "b": 1},
			overlaps: "b<a,b<a,b<a",
		},
		{
			name:     "unknown callers",
			steps:    []step{read(0, ""), read(100, pollstats.Unknown), read(200, "a")},
			calls:    map[string]int{pollstats.Unknown: 2, "a": 1},
			windows:  map[string]int{pollstats.Unknown: 1, "a": 1},
			overlaps: "a<unknown",
		},
		{
			name:     "one overlap per other caller, not per open region",
			steps:    []step{read(0, "a"), {ms: 10, account: "acct", region: "r2", caller: "a", read: true}, read(20, "c"), read(30, "b")},
			calls:    map[string]int{"a": 2, "b": 1, "c": 1},
			windows:  map[string]int{"a": 2, "b": 1, "c": 1},
			overlaps: "c<a,b<a,b<c",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, tc.steps).Accounts["acct"]
			if !reflect.DeepEqual(got.Calls, tc.calls) {
				t.Errorf("calls = %v; want %v", got.Calls, tc.calls)
			}
			if !reflect.DeepEqual(got.Windows, tc.windows) {
				t.Errorf("windows = %v; want %v", got.Windows, tc.windows)
			}
			if p := pairs(got); p != tc.overlaps || got.OverlapCount != len(got.Overlaps) {
				t.Errorf("overlaps = %q (count %d); want %q", p, got.OverlapCount, tc.overlaps)
			}
		})
	}
}

func TestOverlapDetails(t *testing.T) {
	s := run(t, []step{read(0, "a"), {ms: 1500, account: "acct", region: "r2", caller: "b", read: true}})
	want := pollstats.Overlap{
		Callers: [2]string{"b", "a"}, At: newClock().Now().Add(1500 * time.Millisecond), Region: "r2", Op: "Describe", OpenRegion: "r1",
	}
	if got := s.Accounts["acct"].Overlaps; len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("overlaps = %+v; want %+v", got, want)
	}
	if rw := s.Accounts["acct"].RegionWindows; !reflect.DeepEqual(rw, map[string]map[string]int{"r1": {"a": 1}, "r2": {"b": 1}}) {
		t.Errorf("region windows = %v", rw)
	}
	if s.TotalOverlaps() != 1 || s.GapSeconds != 2 {
		t.Errorf("total %d, gap %v", s.TotalOverlaps(), s.GapSeconds)
	}
}

func TestOverlapsKept(t *testing.T) {
	var steps []step
	for i := range pollstats.MaxOverlapsKept + 10 {
		steps = append(steps, read(i, fmt.Sprint("c", i%2)))
	}
	a := run(t, steps).Accounts["acct"]
	if a.OverlapCount != pollstats.MaxOverlapsKept+9 || len(a.Overlaps) != pollstats.MaxOverlapsKept {
		t.Errorf("count %d, kept %d", a.OverlapCount, len(a.Overlaps))
	}
}

func TestResetWhileServing(t *testing.T) {
	clk := newClock()
	tr := pollstats.NewTracker(time.Second, clk.Now)
	end := tr.Begin(pollstats.Call{Account: "acct", Caller: "a", Inventory: true})
	tr.Reset()
	end()
	end() // a second call is harmless
	tr.Begin(pollstats.Call{Account: "acct", Caller: "b", Inventory: true})()
	a := tr.Stats().Accounts["acct"]
	if a.OverlapCount != 0 || !reflect.DeepEqual(a.Calls, map[string]int{"b": 1}) {
		t.Errorf("after a reset: %+v", a)
	}
}

func TestAdminAPI(t *testing.T) {
	clk := newClock()
	tr := pollstats.NewTracker(0, clk.Now)
	srv := httptest.NewServer(tr)
	t.Cleanup(srv.Close)
	tr.Begin(pollstats.Call{Account: "AKID", Region: "us-east-1", Caller: "a", Inventory: true})()
	tr.Begin(pollstats.Call{Account: "AKID", Region: "us-east-1", Caller: "b", Inventory: true})()

	s, err := pollstats.Fetch(t.Context(), srv.Client(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	a := s.Accounts["AKID"]
	if s.GapSeconds != pollstats.DefaultGap.Seconds() || a.OverlapCount != 1 || a.Overlaps[0].Callers != [2]string{"b", "a"} ||
		!a.Overlaps[0].At.Equal(clk.Now()) || a.Calls["a"] != 1 || a.Windows["b"] != 1 {
		t.Errorf("stats over HTTP: %+v", s)
	}
	if err := pollstats.Reset(t.Context(), srv.Client(), srv.URL); err != nil {
		t.Fatal(err)
	}
	if s, err := pollstats.Fetch(t.Context(), srv.Client(), srv.URL); err != nil || len(s.Accounts) != 0 {
		t.Errorf("after reset: %+v, %v", s, err)
	}
	resp, err := srv.Client().Post(srv.URL+pollstats.StatsPath, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("POST %s: %d", pollstats.StatsPath, resp.StatusCode)
	}
	if _, err := pollstats.Fetch(t.Context(), srv.Client(), srv.URL+"/nowhere"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("fetch from a wrong URL: %v", err)
	}
}
