package netns

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"testing"
)

func TestParsePids(t *testing.T) {
	for _, tc := range []struct {
		out  string
		self int
		want []int
	}{
		{"", 10, nil},
		{"1\n42\n43\n", 42, []int{43}},
		{"7 8\nnot-a-pid\n0\n", 1, []int{7, 8}},
	} {
		if got := parsePids(tc.out, tc.self); !slices.Equal(got, tc.want) {
			t.Errorf("parsePids(%q, %d) = %v, want %v", tc.out, tc.self, got, tc.want)
		}
	}
}

func TestOwnerPid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		want   int
		wantOK bool
	}{
		{"apv-1234-vm1", 1234, true},
		{"apv-1234-", 1234, true},
		{"apv-1234", 0, false}, // no "-" after the pid: not a test's name
		{"apv-x-vm1", 0, false},
		{"apv-0-vm1", 0, false},
		{"apv--vm1", 0, false},
	} {
		got, ok := ownerPid("apv-", tc.name)
		if ok != tc.wantOK || (ok && got != tc.want) {
			t.Errorf("ownerPid(apv-, %s) = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Outcome
	}{
		{syscall.ECONNREFUSED, Refused},
		{syscall.ECONNRESET, Refused},
		{syscall.EHOSTUNREACH, Refused},
		{syscall.ENETUNREACH, Refused},
		{syscall.EACCES, Refused},
		{syscall.EPERM, Dropped},
		{context.DeadlineExceeded, Dropped},
	} {
		if got, err := classify(tc.err); err != nil || got != tc.want {
			t.Errorf("classify(%v) = %q, %v; want %q", tc.err, got, err, tc.want)
		}
	}
	other := errors.New("no route to anything")
	if got, err := classify(other); got != "" || !errors.Is(err, other) {
		t.Errorf("classify(other) = %q, %v; want the error back", got, err)
	}
}

func TestBlocked(t *testing.T) {
	for o, want := range map[Outcome]bool{Connected: false, Refused: true, Dropped: true} {
		if o.Blocked() != want {
			t.Errorf("%s.Blocked() = %v, want %v", o, !want, want)
		}
	}
}
