package policyview

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// line shows a row compactly: member, kind, namespace/name, federated or
// derived, phase, enforcement points, remote counts, stale.
func line(r Row) string {
	fed := "-"
	switch {
	case r.Federated:
		fed = "fed"
	case r.DerivedFrom != "":
		fed = "from:" + r.DerivedFrom
	}
	remote := "-"
	if r.Remote != nil {
		remote = fmt.Sprintf("%d/%d,refused:%d", r.Remote.SourcesResolved, r.Remote.SourcesTotal, r.Remote.RefusedPeers)
	}
	stale := ""
	if r.Stale {
		stale = " stale"
	}
	return fmt.Sprintf("%s(%s) %s %s/%s %s %s %d/%d %s%s", r.Context, r.ClusterID, r.Kind, r.Namespace, r.Name, fed, r.Phase, r.Realized, r.Desired, remote, stale)
}

func TestListRows(t *testing.T) {
	realized := antreaStatus(antreav1beta1.NetworkPolicyRealized, 1, 2, 2)
	tests := []struct {
		name  string
		snaps []Snapshot
		want  []string
	}{{
		name:  "no member, no row",
		snaps: nil,
		want:  nil,
	}, {
		name: "each kind, sorted: cluster-wide first, then by Namespace, a derived policy after its federated policy",
		snaps: []Snapshot{snap("member-2", identity("acme", "eu-2"),
			withNP(np("shop", "zz", 1, realized)),
			withNP(derived("shop", "web", 1, realized)),
			withNP(np("shop", "allow-dns", 1, realized)),
			withFNP(fnp("shop", "web", 2, fnpPhase(policyv1alpha1.FederatedPolicyPending, 2), points(true, false), sources(true, false), refused(1))),
			withACNP(acnp("deny-all", 1, realized)),
			withNP(np("a", "first", 1, realized)),
		)},
		want: []string{
			"member-2(eu-2) ClusterNetworkPolicy /deny-all - Realized 2/2 -",
			"member-2(eu-2) NetworkPolicy a/first - Realized 2/2 -",
			"member-2(eu-2) NetworkPolicy shop/allow-dns - Realized 2/2 -",
			"member-2(eu-2) FederatedNetworkPolicy shop/web fed Pending 1/2 1/2,refused:1",
			"member-2(eu-2) NetworkPolicy shop/fnp-web from:web Realized 2/2 -",
			"member-2(eu-2) NetworkPolicy shop/zz - Realized 2/2 -",
		},
	}, {
		name: "members sorted by context; a member outside any federation has no cluster ID",
		snaps: []Snapshot{
			snap("member-2", withNP(np("x", "b", 1, realized))),
			snap("member-1", identity("acme", "m1"), withNP(np("x", "a", 1, realized))),
		},
		want: []string{
			"member-1(m1) NetworkPolicy x/a - Realized 2/2 -",
			"member-2() NetworkPolicy x/b - Realized 2/2 -",
		},
	}, {
		name: "stale: a status of an older generation; no status is not stale",
		snaps: []Snapshot{snap("m",
			withNP(np("x", "old", 3, antreaStatus(antreav1beta1.NetworkPolicyRealized, 2, 1, 1))),
			withNP(np("x", "unwritten", 1, antreav1beta1.NetworkPolicyStatus{})),
			withFNP(fnp("x", "fold", 4, fnpPhase(policyv1alpha1.FederatedPolicyRealized, 3))),
			withFNP(fnp("x", "fnew", 1)),
			withFNP(fnp("x", "fcond", 1, fnpCondition(policyv1alpha1.ConditionTranslated, metav1.ConditionFalse, "NameTaken"))),
		)},
		want: []string{
			"m() FederatedNetworkPolicy x/fcond fed  0/0 0/0,refused:0 stale",
			"m() FederatedNetworkPolicy x/fnew fed  0/0 0/0,refused:0",
			"m() FederatedNetworkPolicy x/fold fed Realized 0/0 0/0,refused:0 stale",
			"m() NetworkPolicy x/old - Realized 1/1 - stale",
			"m() NetworkPolicy x/unwritten -  0/0 -",
		},
	}, {
		name:  "an unreadable member has no rows",
		snaps: []Snapshot{snap("dead", unreachable("connection refused"))},
		want:  nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := List(tt.snaps)
			var got []string
			for _, r := range l.Policies {
				got = append(got, line(r))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestListMembersAndSummary(t *testing.T) {
	realized := antreaStatus(antreav1beta1.NetworkPolicyRealized, 1, 2, 2)
	tests := []struct {
		name        string
		snaps       []Snapshot
		wantMembers []string
		want        Summary
	}{{
		name: "a derived policy whose federated policy is listed counts once; an orphan counts",
		snaps: []Snapshot{
			snap("m1", identity("acme", "m1"),
				withFNP(fnp("shop", "web", 1, fnpPhase(policyv1alpha1.FederatedPolicyRealized, 1), points(true))),
				withNP(derived("shop", "web", 1, realized)),
				withNP(derived("shop", "gone", 1, realized)),
			),
		},
		wantMembers: []string{"m1 m1/acme readable 3"},
		want:        Summary{Policies: 2, Federated: 1, Derived: 2, Members: 1, MembersRead: 1},
	}, {
		name: "the derived policy of a federated policy of another Namespace or member counts",
		snaps: []Snapshot{
			snap("m1", withFNP(fnp("shop", "web", 1, fnpPhase(policyv1alpha1.FederatedPolicyRealized, 1)))),
			snap("m2", withNP(derived("shop", "web", 1, realized)), withNP(derived("other", "web", 1, realized))),
		},
		wantMembers: []string{"m1 / readable 1", "m2 / readable 2"},
		want:        Summary{Policies: 3, Federated: 1, Derived: 2, Members: 2, MembersRead: 2},
	}, {
		name: "stale and not realized: pending, lagging points, stale, no status",
		snaps: []Snapshot{snap("m",
			withNP(np("x", "pending", 1, antreaStatus(antreav1beta1.NetworkPolicyPending, 1, 0, 2))),
			withNP(np("x", "lagging", 1, antreaStatus(antreav1beta1.NetworkPolicyRealized, 1, 1, 2))),
			withNP(np("x", "stale", 2, antreaStatus(antreav1beta1.NetworkPolicyRealized, 1, 2, 2))),
			withNP(np("x", "unwritten", 1, antreav1beta1.NetworkPolicyStatus{})),
			withNP(np("x", "fine", 1, realized)),
			withFNP(fnp("x", "fed", 1, fnpPhase(policyv1alpha1.FederatedPolicyRealized, 1), points(true, false))),
		)},
		wantMembers: []string{"m / readable 6"},
		want:        Summary{Policies: 6, Federated: 1, Stale: 1, NotRealized: 5, Members: 1, MembersRead: 1},
	}, {
		name: "unreachable, CRDs not installed, a kind unreadable",
		snaps: []Snapshot{
			snap("dead", unreachable("dead could not be read: connection refused")),
			snap("bare", notInstalled(KindFederated, KindNetworkPolicy, KindClusterNetworkPolicy)),
			snap("partial", identity("acme", "p"), kindError(KindFederated, "listing FederatedNetworkPolicies: forbidden"),
				kindError(membershipKind, "reading its ClusterMembership: forbidden"), withNP(np("x", "a", 1, realized))),
		},
		wantMembers: []string{
			"bare / readable 0 notInstalled=[FederatedNetworkPolicy NetworkPolicy ClusterNetworkPolicy]",
			"dead / unreadable 0 errors=[dead could not be read: connection refused]",
			"partial p/acme readable 1 errors=[reading its ClusterMembership: forbidden listing FederatedNetworkPolicies: forbidden]",
		},
		want: Summary{Policies: 1, Members: 3, MembersRead: 2, MembersUnreadable: 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := List(tt.snaps)
			var members []string
			for _, m := range l.Members {
				members = append(members, memberLine(m))
			}
			if !slices.Equal(members, tt.wantMembers) {
				t.Errorf("members:\n%s\nwant:\n%s", strings.Join(members, "\n"), strings.Join(tt.wantMembers, "\n"))
			}
			if l.Summary != tt.want {
				t.Errorf("summary %+v, want %+v", l.Summary, tt.want)
			}
		})
	}
}

func memberLine(m Member) string {
	s := fmt.Sprintf("%s %s/%s %s %d", m.Context, m.ClusterID, m.FederationID, map[bool]string{true: "readable", false: "unreadable"}[m.Readable], m.Policies)
	if len(m.NotInstalled) > 0 {
		s += fmt.Sprintf(" notInstalled=%v", m.NotInstalled)
	}
	if len(m.Errors) > 0 {
		s += fmt.Sprintf(" errors=%v", m.Errors)
	}
	return s
}

// TestListJSON pins the JSON field names the package documents.
func TestListJSON(t *testing.T) {
	l := List([]Snapshot{
		snap("m1", identity("acme", "m1"),
			withFNP(fnp("shop", "web", 2, fnpPhase(policyv1alpha1.FederatedPolicyPending, 1), points(true, false), sources(true), refused(1))),
			withNP(derived("shop", "web", 1, antreaStatus(antreav1beta1.NetworkPolicyRealized, 1, 2, 2)))),
		snap("dead", unreachable("no answer")),
	})
	data, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"members":[` +
		`{"context":"dead","readable":false,"errors":["no answer"],"policies":0},` +
		`{"context":"m1","clusterID":"m1","federationID":"acme","readable":true,"policies":2}],` +
		`"policies":[` +
		`{"context":"m1","clusterID":"m1","kind":"FederatedNetworkPolicy","namespace":"shop","name":"web","tier":"application","priority":10,` +
		`"federated":true,"phase":"Pending","realized":1,"desired":2,"remote":{"sourcesResolved":1,"sourcesTotal":1,"refusedPeers":1},` +
		`"generation":2,"observedGeneration":1,"stale":true},` +
		`{"context":"m1","clusterID":"m1","kind":"NetworkPolicy","namespace":"shop","name":"fnp-web","tier":"application","priority":5,` +
		`"federated":false,"derivedFrom":"web","phase":"Realized","realized":2,"desired":2,"generation":1,"observedGeneration":1,"stale":false}],` +
		`"summary":{"policies":1,"federated":1,"derived":1,"stale":1,"notRealized":1,"members":2,"membersRead":1,"membersUnreadable":1}}`
	if string(data) != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", data, want)
	}
}
