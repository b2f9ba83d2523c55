package membership

import (
	"errors"
	"strings"
	"testing"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestPickFederation(t *testing.T) {
	sup := func(name, fed string) probe {
		return probe{cluster: cluster(name, ""), membership: membership(fed, name, true)}
	}
	plain := probe{cluster: cluster("m", ""), membership: membership("zeta", "m", false)}
	dead := probe{cluster: cluster("dead", ""), err: errors.New("timeout")}
	tests := []struct {
		name    string
		probes  []probe
		asked   string
		want    string
		wantErr string
	}{
		{name: "the only federation", probes: []probe{sup("a", "acme"), plain, dead}, want: "acme"},
		{name: "asked for and found", probes: []probe{sup("a", "acme"), sup("b", "other")}, asked: "other", want: "other"},
		{name: "several federations", probes: []probe{sup("a", "acme"), sup("b", "other")}, wantErr: "several federations (acme, other): choose one with --federation-id"},
		{name: "plain members do not make a federation", probes: []probe{plain}, wantErr: "no federation supervisor among the 1 contexts"},
		{name: "none, and some did not answer", probes: []probe{dead}, wantErr: "these contexts did not answer: dead (timeout)"},
		{name: "asked for, not found", probes: []probe{sup("a", "acme")}, asked: "zeta", wantErr: "no supervisor of federation zeta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pickFederation(tt.probes, tt.asked)
			errMatches(t, err, tt.wantErr)
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMissingSupervisors(t *testing.T) {
	probes := []probe{
		{cluster: cluster("ctx-1", s1URL), membership: membership("acme", "s1", true)},
		{cluster: cluster("ctx-2", s2URL), err: errors.New("timeout")},
		{cluster: cluster("ctx-3", m3URL), membership: membership("acme", "m3", false)},
	}
	registries := [][]federationv1alpha1.MemberCluster{
		{entry("s1", s1URL, asSupervisor), entry("s2", s2URL, asSupervisor), entry("m3", m3URL, asSupervisor), entry("m4", "https://10.0.0.4", asSupervisor), entry("m5", "https://10.0.0.5")},
		{entry("s2", s2URL, asSupervisor)},
	}
	got := missingSupervisors(probes, "acme", registries)
	want := map[string]string{
		"s2": "its context ctx-2 did not answer (timeout)",
		"m3": "its context ctx-3 does not show it as a supervisor of acme",
		"m4": "no context of the kubeconfig points at that server",
	}
	if len(got) != len(want) {
		t.Fatalf("missing = %+v, want %v", got, want)
	}
	for _, m := range got {
		if (m.ClusterID == "s2") != (m.Context == "ctx-2") {
			t.Errorf("%s: context %q, want ctx-2 only for s2", m.ClusterID, m.Context)
		}
		if !strings.Contains(m.Reason, want[m.ClusterID]) {
			t.Errorf("%s: reason %q, want %q", m.ClusterID, m.Reason, want[m.ClusterID])
		}
	}
	d := &Discovery{Missing: got}
	if err := d.MissingError(); err == nil || !strings.Contains(err.Error(), "supervisor m4 at https://10.0.0.4") {
		t.Errorf("MissingError() = %v", err)
	}
	if err := (&Discovery{}).MissingError(); err != nil {
		t.Errorf("MissingError() with nothing missing = %v", err)
	}
}
