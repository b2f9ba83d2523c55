package pollstatus

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

var (
	acct = types.NamespacedName{Namespace: "tenant-a", Name: "acct"}
	sel  = types.NamespacedName{Namespace: "tenant-a", Name: "sel"}
	key  = Key{Account: acct, Region: "us-east-1"}
	t0   = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

func drain(s *Store) (accounts, selectors int) {
	for {
		select {
		case <-s.AccountEvents():
			accounts++
		case <-s.SelectorEvents():
			selectors++
		default:
			return accounts, selectors
		}
	}
}

func TestRecordAnnouncesOnlyChanges(t *testing.T) {
	s := New(10 * time.Minute)
	ok := Outcome{Reason: cloudv1alpha1.AccountReasonPolled, Selector: sel}
	throttled := Outcome{Reason: cloudv1alpha1.AccountReasonThrottled, Message: "RequestLimitExceeded", Selector: sel}
	steps := []struct {
		name      string
		outcome   Outcome
		at        time.Duration
		acct, sel int
		failures  int
	}{
		{"first poll", ok, 0, 1, 1, 0},
		{"same again", ok, time.Minute, 0, 0, 0},
		{"same with writes", Outcome{Reason: cloudv1alpha1.AccountReasonPolled, Selector: sel, Writes: 3}, 2 * time.Minute, 0, 1, 0},
		{"throttled", throttled, 3 * time.Minute, 1, 1, 1},
		{"throttled again", throttled, 4 * time.Minute, 0, 0, 2},
		{"recovered", ok, 5 * time.Minute, 1, 1, 0},
		{"quiet", ok, 14 * time.Minute, 0, 0, 0},
		{"heartbeat due", ok, 15 * time.Minute, 1, 1, 0},
	}
	for _, st := range steps {
		r := s.Record(key, st.outcome, t0.Add(st.at))
		a, se := drain(s)
		if a != st.acct || se != st.sel || r.Failures != st.failures {
			t.Errorf("%s: events account=%d selector=%d failures=%d; want %d %d %d", st.name, a, se, r.Failures, st.acct, st.sel, st.failures)
		}
	}
	r, _ := s.Get(key)
	if !r.LastSuccess.Equal(t0.Add(15 * time.Minute)) {
		t.Errorf("LastSuccess = %s", r.LastSuccess)
	}
}

func TestFailureKeepsLastSuccess(t *testing.T) {
	s := New(0)
	s.Record(key, Outcome{Reason: cloudv1alpha1.AccountReasonPolled}, t0)
	r := s.Record(key, Outcome{Reason: cloudv1alpha1.AccountReasonAuthenticationFailed, Message: "AuthFailure"}, t0.Add(time.Minute))
	if !r.LastSuccess.Equal(t0) || r.Failures != 1 {
		t.Fatalf("result = %+v", r)
	}
}

func TestSelectorChangeTellsBoth(t *testing.T) {
	s := New(0)
	other := types.NamespacedName{Namespace: "tenant-a", Name: "other"}
	s.Record(key, Outcome{Reason: cloudv1alpha1.AccountReasonPolled, Selector: sel}, t0)
	drain(s)
	s.Record(key, Outcome{Reason: cloudv1alpha1.AccountReasonPolled, Selector: other}, t0.Add(time.Minute))
	if _, n := drain(s); n != 2 {
		t.Fatalf("%d selector events; want one for each selector", n)
	}
}

func TestForgetKeepsListedRegions(t *testing.T) {
	s := New(0)
	s.Record(key, Outcome{Reason: cloudv1alpha1.AccountReasonPolled}, t0)
	s.Record(Key{Account: acct, Region: "eu-west-1"}, Outcome{Reason: cloudv1alpha1.AccountReasonPolled}, t0)
	s.Forget(acct, "eu-west-1")
	if got := s.Regions(acct); len(got) != 1 || got["eu-west-1"].At.IsZero() {
		t.Fatalf("regions = %v", got)
	}
}
