package manager

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestStopLeavesReadersInTheBackground: once the elector has returned,
// stop waits stopRestFor for the rest of the session and no longer; what
// is left running is counted and its stacks found by the session's labels.
func TestStopLeavesReadersInTheBackground(t *testing.T) {
	defer func(d time.Duration) { stopRestFor = d }(stopRestFor)
	stopRestFor = 200 * time.Millisecond
	s := &session{clusterID: "member-stuck", cancel: func() {}, electorDone: make(chan struct{})}
	close(s.electorDone)
	release := make(chan struct{})
	s.goRun("member cache", func() { <-release })
	s.goRun("exports watch", func() {})

	before := testutil.ToFloat64(sessionsStoppingInBackground)
	start := time.Now()
	s.stop()
	if took := time.Since(start); took < stopRestFor || took > stopRestFor+2*time.Second {
		t.Errorf("stop returned after %v; want about %v", took, stopRestFor)
	}
	if got := s.waitingFor(); len(got) != 1 || got[0] != "member cache" {
		t.Errorf("still running %v; want [member cache]", got)
	}
	if n := testutil.ToFloat64(sessionsStoppingInBackground) - before; n != 1 {
		t.Errorf("sessions stopping in the background rose by %v; want 1", n)
	}
	stacks := sessionStacks("member-stuck", maxStacks)
	if !strings.Contains(stacks, `"part":"member cache"`) || !strings.Contains(stacks, "TestStopLeavesReadersInTheBackground") {
		t.Errorf("the stacks of the session do not show the goroutine left running:\n%s", stacks)
	}
	if other := sessionStacks("member-other", maxStacks); other != "" {
		t.Errorf("stacks of another member's session: %s", other)
	}

	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for testutil.ToFloat64(sessionsStoppingInBackground) != before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := testutil.ToFloat64(sessionsStoppingInBackground) - before; n != 0 {
		t.Errorf("%v sessions still counted as stopping after the last goroutine ended", n)
	}
}

// TestStopWaitsForTheElector: a session's stop does not return before its
// elector has (the elector stops the controllers that write).
func TestStopWaitsForTheElector(t *testing.T) {
	s := &session{clusterID: "member-elector", cancel: func() {}, electorDone: make(chan struct{})}
	go func() {
		time.Sleep(300 * time.Millisecond)
		close(s.electorDone)
	}()
	start := time.Now()
	s.stop()
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("stop returned after %v, before the elector (300 ms)", took)
	}
}
