package view

import (
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestFederationOf(t *testing.T) {
	hub := registers(ledBy(member("ctx-hub", "hub", true, "eu", "eu-1a"), "hub", 1), "hub", "east", "west")
	hub.Leases = append(hub.Leases, coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.ManagerLease},
		Spec: coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: t0.Add(-time.Minute)}, LeaseDurationSeconds: ptr.To(int32(6))}})
	east := ledBy(member("ctx-east", "east", false, "eu", "eu-1b"), "hub", 3)
	west := ledBy(member("ctx-west", "west", false, "us", "us-1a"), "hub", 1)
	west.Health = Health{Probed: true, Reachable: false, Error: "dial tcp: connection refused", Since: t0.Add(-time.Minute)}
	// west's own Lease cannot be read now: its leader is what the registry reports.
	hub.Registry[2].Status.Leader = "hub"
	outside := &Member{Context: "ctx-lab", Health: Health{Probed: true, Reachable: true}, Kinds: synced(everyKind...)}
	f := FederationOf([]*Member{west, outside, east, hub}, nil, t0)

	if !slices.Equal(f.FederationIDs, []string{"prod"}) {
		t.Errorf("federation IDs %v", f.FederationIDs)
	}
	var ids []string
	for _, m := range f.Members {
		ids = append(ids, m.ClusterID)
	}
	if !slices.Equal(ids, []string{"east", "hub", "west"}) {
		t.Fatalf("members %v, want east, hub, west", ids)
	}
	e := f.Members[0]
	if e.Leader != "hub" || e.LeaderContext != "ctx-hub" || e.LeaderTerm != 3 || e.Region != "eu" || !slices.Equal(e.Zones, []string{"eu-1b"}) ||
		e.Supervisor || !e.Reachable || e.Kubectl != "kubectl --context ctx-east get clustermemberships -o yaml" {
		t.Errorf("east: %+v", e)
	}
	if !f.Members[1].Supervisor {
		t.Errorf("hub is a supervisor: %+v", f.Members[1])
	}
	if w := f.Members[2]; w.Health.Reachable || w.Health.Error == "" || !strings.Contains(strings.Join(w.Problems, "; "), "ctx-west does not answer") {
		t.Errorf("west's own probe failed: %+v, problems %v", w.Health, w.Problems)
	}
	if len(f.Supervisors) != 1 || !slices.Equal(f.Supervisors[0].Leads, []string{"east", "hub", "west"}) {
		t.Errorf("supervisors %+v; want hub leading all three", f.Supervisors)
	}
	if s := f.Supervisors[0]; s.ManagerAlive || s.Manager != "stopped: no heartbeat for 1m0s" {
		t.Errorf("hub's manager %q (alive %v); want stopped a minute ago", s.Manager, s.ManagerAlive)
	}
	want := []Region{{Name: "", Zones: []Zone{{Name: "", Members: []string{"ctx-lab"}}}},
		{Name: "eu", Zones: []Zone{{Name: "eu-1a", Members: []string{"ctx-hub"}}, {Name: "eu-1b", Members: []string{"ctx-east"}}}},
		{Name: "us", Zones: []Zone{{Name: "us-1a", Members: []string{"ctx-west"}}}}}
	if len(f.Regions) != len(want) {
		t.Fatalf("regions %+v, want %+v", f.Regions, want)
	}
	for i := range want {
		if f.Regions[i].Name != want[i].Name || len(f.Regions[i].Zones) != len(want[i].Zones) {
			t.Errorf("region %d: %+v, want %+v", i, f.Regions[i], want[i])
		}
	}
	if len(f.Outside) != 1 || f.Outside[0].Context != "ctx-lab" {
		t.Errorf("outside %+v, want ctx-lab", f.Outside)
	}
	if len(f.Headers) != 4 || !f.Headers[3].Stale {
		t.Errorf("headers %+v: want 4, ctx-west stale", f.Headers)
	}
}

func TestFederationWithoutRights(t *testing.T) {
	hub := registers(ledBy(member("ctx-hub", "hub", true, "", ""), "hub", 1), "hub", "east")
	east := ledBy(member("ctx-east", "east", false, "", ""), "hub", 1)
	// The user may not read east's Leases, nor the hub's registry.
	east.Kinds["Leases"] = KindState{State: NotReadable, Message: `leases is forbidden: User "dave" cannot list resource "leases"`}
	east.Leases = nil
	hub.Kinds["MemberClusters"] = KindState{State: NotReadable, Message: "memberclusters is forbidden"}
	hub.Registry = nil
	f := FederationOf([]*Member{hub, east}, nil, t0)
	var unreadable []string
	for _, h := range f.Headers {
		for _, u := range h.Unreadable {
			unreadable = append(unreadable, h.Context+":"+u.Kind)
		}
	}
	if !slices.Equal(unreadable, []string{"ctx-east:Leases", "ctx-hub:MemberClusters"}) {
		t.Errorf("unreadable %v", unreadable)
	}
	if len(f.Supervisors) != 1 || f.Supervisors[0].Reachable || !strings.Contains(f.Supervisors[0].Error, "MemberClusters NotReadable") {
		t.Errorf("supervisor %+v: want its registry not read, saying why", f.Supervisors)
	}
	// No registry read: the members are listed from their own objects.
	if len(f.Members) != 2 {
		t.Fatalf("members %+v", f.Members)
	}
	for _, m := range f.Members {
		if !slices.Contains(m.Problems, "no supervisor registry read here lists it") {
			t.Errorf("%s: problems %v", m.ClusterID, m.Problems)
		}
	}
}

func TestLeaders(t *testing.T) {
	fed := func(leader string, term int32) Federation {
		return Federation{Members: []FedMember{{ClusterID: "east", Leader: leader, LeaderTerm: term}, {ClusterID: "west", Leader: "hub", LeaderTerm: 1}}}
	}
	at := t0
	changes := Leaders(fed("hub", 1), fed("hub", 1), nil, at, 3)
	if len(changes) != 0 {
		t.Errorf("no change: %+v", changes)
	}
	changes = Leaders(fed("hub", 1), fed("", 1), changes, at, 3)
	changes = Leaders(fed("", 1), fed("spare", 2), changes, at.Add(time.Second), 3)
	if len(changes) != 2 || changes[0].To != "spare" || changes[0].From != "" || changes[1].From != "hub" || changes[1].To != "" {
		t.Fatalf("changes %+v; want hub -> none, then none -> spare, newest first", changes)
	}
	for i := range 5 {
		changes = Leaders(fed("a", int32(10+i)), fed("b", int32(11+i)), changes, at, 3)
	}
	if len(changes) != 3 {
		t.Errorf("kept %d changes, want 3", len(changes))
	}
}

func TestCredentialsShown(t *testing.T) {
	hub := registers(ledBy(member("ctx-hub", "hub", true, "", ""), "hub", 1), "hub", "east")
	for i := range hub.Registry[1].Status.Conditions {
		if c := &hub.Registry[1].Status.Conditions[i]; c.Type == federationv1alpha1.MemberCredentialsValid {
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, "Unauthorized", "the member refused the federation account's token"
		}
	}
	east := ledBy(member("ctx-east", "east", false, "", ""), "hub", 1)
	f := FederationOf([]*Member{hub, east}, nil, t0)
	if f.Members[0].Credentials != "the member refused the federation account's token" {
		t.Errorf("east's credentials: %q", f.Members[0].Credentials)
	}
}

func TestHeartbeat(t *testing.T) {
	lease := func(holder *string, age time.Duration) []coordinationv1.Lease {
		return []coordinationv1.Lease{{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.ManagerLease},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: holder, RenewTime: &metav1.MicroTime{Time: t0.Add(-age)}, LeaseDurationSeconds: ptr.To(int32(6))}}}
	}
	for _, tc := range []struct {
		name   string
		leases []coordinationv1.Lease
		want   string
		alive  bool
	}{
		{"renewed 2 s ago", lease(ptr.To("hub"), 2*time.Second), "beating", true},
		{"renewed a minute ago", lease(ptr.To("hub"), time.Minute), "stopped: no heartbeat for 1m0s", false},
		{"released 2 s ago: its manager shut down", lease(ptr.To(""), 2*time.Second), "stopped: its manager shut down", false},
		{"no holder written (older managers): by its age", lease(nil, 2*time.Second), "beating", true},
		{"none", nil, "no heartbeat Lease", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, alive := heartbeat(tc.leases, t0); got != tc.want || alive != tc.alive {
				t.Errorf("heartbeat = %q, %t; want %q, %t", got, alive, tc.want, tc.alive)
			}
		})
	}
}
