package membership

import (
	"errors"
	"testing"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestCheckLeave(t *testing.T) {
	dead := []unreachableSupervisor{{name: "s2", err: errors.New("timeout")}}
	tests := []struct {
		name        string
		m           *federationv1alpha1.ClusterMembership
		own         int
		unreachable []unreachableSupervisor
		force       bool
		wantErr     string
	}{
		{name: "a member", m: membership("acme", "m3", false)},
		{name: "not a member at all"},
		{name: "a supervisor", m: membership("acme", "s1", true), own: 3,
			wantErr: "s1-ctx is a supervisor and its registry holds 3 member(s): leaving deletes that registry"},
		{name: "a registry without identity", own: 1, wantErr: "run 'antreaplus federation leave --context s1-ctx --force'"},
		{name: "a supervisor, forced", m: membership("acme", "s1", true), own: 3, force: true},
		{name: "a supervisor cannot be reached", m: membership("acme", "m3", false), unreachable: dead,
			wantErr: "supervisors could not be reached: s2 (timeout); nothing was changed"},
		{name: "a supervisor cannot be reached, forced", m: membership("acme", "m3", false), unreachable: dead, force: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errMatches(t, checkLeave("s1-ctx", tt.m, tt.own, tt.unreachable, tt.force), tt.wantErr)
		})
	}
}

func TestMemberIDAndOthers(t *testing.T) {
	me := cluster("ctx-3", m3URL)
	regs := []supervisorConn{{registry: []federationv1alpha1.MemberCluster{entry("s1", s1URL), entry("m3", m3URL+"/")}}}
	if got := memberID(me, membership("acme", "eu-3", false), regs); got != "eu-3" {
		t.Errorf("with an identity: %q", got)
	}
	if got := memberID(me, nil, regs); got != "m3" {
		t.Errorf("from the registry: %q", got)
	}
	if got := memberID(cluster("x", "https://10.1.1.1"), nil, regs); got != "" {
		t.Errorf("unknown: %q", got)
	}
	got := others(me, []Cluster{cluster("ctx-1", s1URL), me, cluster("alias", m3URL)})
	if len(got) != 1 || got[0].Name != "ctx-1" {
		t.Errorf("others = %+v", got)
	}
}
