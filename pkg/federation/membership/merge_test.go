package membership

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

const (
	s1URL = "https://127.0.0.1:6441"
	s2URL = "https://127.0.0.1:6442"
	m3URL = "https://127.0.0.1:6443"
)

func view(ctx, id, server string, entries ...federationv1alpha1.MemberCluster) registryView {
	return registryView{
		supervisor: SupervisorStatus{Context: ctx, ClusterID: id, FederationID: "acme", Server: server, Reachable: true, Members: len(entries)},
		entries:    entries,
	}
}

func deadView(ctx, server string) registryView {
	return registryView{supervisor: SupervisorStatus{Context: ctx, Server: server, Error: "connection refused"}}
}

func member(st *FederationStatus, id string) MemberStatus {
	for _, m := range st.Members {
		if m.ClusterID == id {
			return m
		}
	}
	return MemberStatus{}
}

func hasProblem(st *FederationStatus, text string) bool {
	return slices.ContainsFunc(st.Problems, func(p string) bool { return strings.Contains(p, text) })
}

func TestMergeStatus(t *testing.T) {
	renewed := metav1.NewMicroTime(t0.Add(-2 * time.Second))
	stale := metav1.NewMicroTime(t0.Add(-time.Minute))
	ready := condition(federationv1alpha1.MemberReady, metav1.ConditionTrue, "Ready")
	notReady := condition(federationv1alpha1.MemberReady, metav1.ConditionFalse, "NoLeader")
	s1 := entry("s1", s1URL, asSupervisor)
	s2 := entry("s2", s2URL, asSupervisor)
	tests := []struct {
		name   string
		views  []registryView
		leases map[string]leaseView
		check  func(t *testing.T, st *FederationStatus)
	}{{
		name:  "fresh join, no manager: members listed, not ready, no leader",
		views: []registryView{view("ctx-1", "s1", s1URL, s1, entry("m3", m3URL))},
		check: func(t *testing.T, st *FederationStatus) {
			t.Helper()
			if st.FederationID != "acme" || len(st.Members) != 2 || len(st.Supervisors) != 1 {
				t.Fatalf("status = %+v", st)
			}
			m := member(st, "s1")
			if !m.Supervisor || m.Ready || m.Leader != "" || !slices.Equal(m.RegisteredIn, []string{"ctx-1"}) {
				t.Errorf("s1 = %+v", m)
			}
			if !hasProblem(st, "m3: no federation manager has reported") || !hasProblem(st, "m3: no supervisor leads it") {
				t.Errorf("problems = %v", st.Problems)
			}
		},
	}, {
		name: "the freshest report wins",
		views: []registryView{
			view("ctx-1", "s1", s1URL, s1, s2, entry("m3", m3URL, probed("s1", -time.Minute, false), notReady)),
			view("ctx-2", "s2", s2URL, s1, s2, entry("m3", m3URL, probed("s2", -time.Second, true), led("s2"), ready)),
		},
		check: func(t *testing.T, st *FederationStatus) {
			t.Helper()
			m := member(st, "m3")
			if !m.Ready || !m.Reachable || m.Leader != "s2" || m.ReportedBy != "s2" || m.LeaseSource != LeaseFromRegistry {
				t.Errorf("m3 = %+v", m)
			}
			if len(m.Problems) != 0 || len(m.RegisteredIn) != 2 {
				t.Errorf("m3 problems %v, registered in %v", m.Problems, m.RegisteredIn)
			}
		},
	}, {
		name: "unreachable member, credentials refused",
		views: []registryView{view("ctx-1", "s1", s1URL, s1, entry("m3", m3URL, probed("s1", 0, false),
			func(e *federationv1alpha1.MemberCluster) {
				e.Status.LastError, e.Status.UnreachableSince = "dial tcp: refused", at(-time.Minute)
			},
			condition(federationv1alpha1.MemberCredentialsValid, metav1.ConditionFalse, "Unauthorized")))},
		check: func(t *testing.T, st *FederationStatus) {
			t.Helper()
			for _, want := range []string{"m3: unreachable from s1: dial tcp: refused", "m3: unreachable from every supervisor since",
				"m3: credentials refused (Unauthorized", "m3: no supervisor leads it"} {
				if !hasProblem(st, want) {
					t.Errorf("no problem %q in %v", want, st.Problems)
				}
			}
		},
	}, {
		name: "registries disagree and one lacks the member",
		views: []registryView{
			view("ctx-1", "s1", s1URL, s1, s2, entry("m3", m3URL)),
			view("ctx-2", "s2", s2URL, s1, s2, entry("m3", "https://10.9.9.9:6443")),
			view("ctx-3", "s3", "https://127.0.0.1:6449", s1, s2),
		},
		check: func(t *testing.T, st *FederationStatus) {
			t.Helper()
			if !hasProblem(st, "m3: the registries disagree: ctx-1 has server "+m3URL) {
				t.Errorf("no disagreement in %v", st.Problems)
			}
			if !hasProblem(st, "m3: missing from the registry of supervisor ctx-3") {
				t.Errorf("no missing entry in %v", st.Problems)
			}
		},
	}, {
		name:  "a supervisor does not answer",
		views: []registryView{view("ctx-1", "s1", s1URL, s1, s2), deadView("ctx-2", s2URL)},
		check: func(t *testing.T, st *FederationStatus) {
			t.Helper()
			if !hasProblem(st, "supervisor ctx-2 did not answer (connection refused)") || st.Supervisors[1].Reachable {
				t.Errorf("problems = %v, supervisors = %+v", st.Problems, st.Supervisors)
			}
			if hasProblem(st, "missing from the registry of supervisor ctx-2") || hasProblem(st, "no kubeconfig context") {
				t.Errorf("an unanswered supervisor is blamed for more: %v", st.Problems)
			}
		},
	}, {
		name:  "the registry names a supervisor that was not queried",
		views: []registryView{view("ctx-1", "s1", s1URL, s1, s2)},
		check: func(t *testing.T, st *FederationStatus) {
			t.Helper()
			if !hasProblem(st, "names supervisor s2 at "+s2URL+", but it was not queried: no kubeconfig context points at that server") {
				t.Errorf("problems = %v", st.Problems)
			}
		},
	}, {
		name:   "a live Lease read in the member names the leader",
		views:  []registryView{view("ctx-1", "s1", s1URL, s1, entry("m3", m3URL, led("old")))},
		leases: map[string]leaseView{"m3": {read: true, holder: "s1", renewTime: &renewed, duration: 10 * time.Second, term: 4, since: &renewed}},
		check: func(t *testing.T, st *FederationStatus) {
			t.Helper()
			m := member(st, "m3")
			if m.Leader != "s1" || m.LeaseHolder != "s1" || m.LeaseSource != LeaseFromMember || !m.LeaseRenewTime.Equal(&renewed) ||
				m.LeaderTerm != 4 || !m.LeaderSince.Equal(&renewed) {
				t.Errorf("m3 = %+v", m)
			}
			if hasProblem(st, "m3: no supervisor leads it") {
				t.Errorf("problems = %v", st.Problems)
			}
		},
	}, {
		name:   "an expired Lease means no leader",
		views:  []registryView{view("ctx-1", "s1", s1URL, s1, entry("m3", m3URL, led("s1")))},
		leases: map[string]leaseView{"m3": {read: true, holder: "s1", renewTime: &stale, duration: 10 * time.Second}},
		check: func(t *testing.T, st *FederationStatus) {
			t.Helper()
			if m := member(st, "m3"); m.Leader != "" || m.LeaseHolder != "s1" {
				t.Errorf("m3 = %+v", m)
			}
			if !hasProblem(st, "m3: its leader Lease antreaplus-system/antreaplus-federation-leader expired (last holder s1)") {
				t.Errorf("problems = %v", st.Problems)
			}
		},
	}, {
		name:  "supervisors of different federations",
		views: []registryView{view("ctx-1", "s1", s1URL, s1), func() registryView { v := view("ctx-2", "s2", s2URL); v.supervisor.FederationID = "other"; return v }()},
		check: func(t *testing.T, st *FederationStatus) {
			t.Helper()
			if st.FederationID != "acme" || !hasProblem(st, "supervisor ctx-2 belongs to federation other, not acme") {
				t.Errorf("federation %q, problems = %v", st.FederationID, st.Problems)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, mergeStatus(tt.views, tt.leases, t0))
		})
	}
}

func TestMergeStatusJSONNeverNull(t *testing.T) {
	st := mergeStatus(nil, nil, t0)
	if st.Members == nil || st.Supervisors == nil || st.Problems == nil {
		t.Fatalf("empty status has nil lists: %+v", st)
	}
}
