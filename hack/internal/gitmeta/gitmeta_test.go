package gitmeta

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCommitTime(t *testing.T) {
	fromGit := func(out string, err error) func(...string) (string, error) {
		return func(...string) (string, error) { return out, err }
	}
	cases := []struct {
		name    string
		epoch   string
		git     func(...string) (string, error)
		want    time.Time
		wantErr string
	}{
		{"epoch given, git not asked", "1700000000", fromGit("", errors.New("no git")), time.Unix(1700000000, 0).UTC(), ""},
		{"from the commit", "", fromGit("1600000000", nil), time.Unix(1600000000, 0).UTC(), ""},
		{"git fails", "", fromGit("", errors.New("not a git repository")), time.Time{}, "not a git repository"},
		{"not a number", "yesterday", nil, time.Time{}, "not a number of seconds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CommitTime(tc.epoch, tc.git)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("CommitTime(%q) error %v, want one containing %q", tc.epoch, err, tc.wantErr)
				}
				return
			}
			if err != nil || !got.Equal(tc.want) {
				t.Fatalf("CommitTime(%q) = %v, %v; want %v", tc.epoch, got, err, tc.want)
			}
		})
	}
}
