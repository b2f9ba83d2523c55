package cmd

import (
	"bytes"
	"strings"
	"testing"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/policyview"
)

func testListing() policyview.Listing {
	return policyview.Listing{
		Members: []policyview.Member{
			{Context: "bare", Readable: true, NotInstalled: []string{policyview.KindFederated}},
			{Context: "dead", Errors: []string{"dead could not be read: connection refused"}},
			{Context: "member-2", ClusterID: "eu-2", FederationID: "acme", Readable: true, Policies: 3},
		},
		Policies: []policyview.Row{
			{Context: "member-2", ClusterID: "eu-2", Kind: policyview.KindClusterNetworkPolicy, Name: "deny-all", Tier: "securityops", Priority: 1.5, Phase: "Realized", Realized: 2, Desired: 2},
			{Context: "member-2", ClusterID: "eu-2", Kind: policyview.KindFederated, Namespace: "shop", Name: "web", Tier: "application", Priority: 10, Federated: true,
				Phase: "Pending", Realized: 1, Desired: 2, Remote: &policyview.RemoteCounts{SourcesResolved: 1, SourcesTotal: 2, RefusedPeers: 1}, Stale: true},
			{Context: "member-2", ClusterID: "eu-2", Kind: policyview.KindNetworkPolicy, Namespace: "shop", Name: "fnp-web", Priority: 10, DerivedFrom: "web"},
		},
		Summary: policyview.Summary{Policies: 2, Federated: 1, Derived: 1, Stale: 1, NotRealized: 1, Members: 3, MembersRead: 2, MembersUnreadable: 1},
	}
}

func TestPrintListing(t *testing.T) {
	var out bytes.Buffer
	if err := printListing(&out, testListing()); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"CONTEXT   CLUSTER ID  KIND                    NAMESPACE  NAME      TIER         PRIORITY  FEDERATED  PHASE     REALIZED  REMOTE  REFUSED  STALE\n",
		"member-2  eu-2        ClusterNetworkPolicy    -          deny-all  securityops  1.5       no         Realized  2/2       -       -        no\n",
		"member-2  eu-2        FederatedNetworkPolicy  shop       web       application  10        yes        Pending   1/2       1/2     1        yes\n",
		"member-2  eu-2        NetworkPolicy           shop       fnp-web   -            10        from web   -         -         -       -        no\n",
		"bare: CRDs not installed: FederatedNetworkPolicy (policy.antreaplus.io)\n",
		"dead: not read: dead could not be read: connection refused\n",
		"2 policies in 2 of 3 member(s): 1 federated, 1 stale, 1 not realized (1 derived Antrea policies, not counted again where their federated policy is listed); 1 member(s) could not be read.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("listing lacks %q:\n%s", want, got)
		}
	}

	out.Reset()
	if err := printListing(&out, policyview.Listing{Summary: policyview.Summary{Members: 1, MembersRead: 1}}); err != nil {
		t.Fatal(err)
	}
	if want := "No policies.\n\n0 policies in 1 of 1 member(s): 0 federated, 0 stale, 0 not realized.\n"; out.String() != want {
		t.Errorf("empty listing %q, want %q", out.String(), want)
	}
}

func TestPrintPolicyStatus(t *testing.T) {
	l := testListing()
	fed := policyview.Detail{Row: l.Policies[1], DerivedPolicy: "fnp-web",
		EnforcementPoints: []policyv1alpha1.EnforcementPointStatus{{Name: "antrea", Realized: true}, {Name: "agent shop/vm-a", Reason: "Unreachable", Message: "no report"}},
		RemoteSources: []policyv1alpha1.RemoteSourceStatus{
			{Rule: "egress[0]/to-orders", Kind: "FederatedService", Name: "shop/orders", Resolved: true, Clusters: []string{"member-1", "member-3"}, Addresses: 2},
			{Rule: "ingress[0]", Kind: "RemoteEntities", Name: "role=build", Message: "no remote entity matches yet"},
		},
		RefusedPeers: []policyv1alpha1.RefusedPeer{{Rule: "ingress[1]", Peer: 0, Reason: "RemotePodsRefused", Message: "use a federated Service"}},
		Conditions:   []policyview.Condition{{Type: "Translated", Status: "True", Reason: "Translated"}, {Type: "RemotePeersResolved", Status: "False", Reason: "Waiting", Message: "1 source waits"}},
	}
	derived := policyview.Detail{Row: l.Policies[2]}
	st := policyview.PolicyStatus{Name: "web", Members: l.Members, Policies: []policyview.Detail{fed, derived}}
	var out bytes.Buffer
	if err := printPolicyStatus(&out, st); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"member-2 (cluster eu-2): FederatedNetworkPolicy shop/web\n  Tier application, priority 10\n  Phase Pending (generation 0, status of generation 0: stale)\n  Derived policy fnp-web\n",
		"  Enforcement points: 1/2 realized\n    NAME             REALIZED  REASON       MESSAGE\n    antrea           yes       -            -\n    agent shop/vm-a  no        Unreachable  no report\n",
		"    RULE                 KIND              NAME         RESOLVED  CLUSTERS           ADDRESSES  MESSAGE\n",
		"    egress[0]/to-orders  FederatedService  shop/orders  yes       member-1,member-3  2          -\n",
		"    ingress[0]           RemoteEntities    role=build   no        -                  0          no remote entity matches yet\n",
		"  Refused peers: 1\n    RULE        PEER  REASON             MESSAGE\n    ingress[1]  0     RemotePodsRefused  use a federated Service\n",
		"    RemotePeersResolved  False   Waiting     1 source waits\n",
		"member-2 (cluster eu-2): NetworkPolicy shop/fnp-web\n  Tier -, priority 10\n  Phase - (generation 0, status of generation 0)\n  Derived from the FederatedNetworkPolicy web\n  Nodes 0/0 realized\n  Conditions: none\n",
		"\ndead: not read: dead could not be read",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("status lacks %q:\n%s", want, got)
		}
	}
}

func TestChosenContexts(t *testing.T) {
	kc := &membership.Kubeconfig{Paths: []string{"kc"}, Clusters: []membership.Cluster{{Name: "member-1"}, {Name: "member-2"}}}
	all, err := chosenContexts(kc, nil)
	if err != nil || len(all) != 2 {
		t.Fatalf("every context: %v, %v", all, err)
	}
	some, err := chosenContexts(kc, []string{"member-2"})
	if err != nil || len(some) != 1 || some[0].Name != "member-2" {
		t.Fatalf("--context member-2: %v, %v", some, err)
	}
	if _, err := chosenContexts(kc, []string{"member-9"}); err == nil || !strings.Contains(err.Error(), "its contexts are member-1, member-2") {
		t.Fatalf("unknown context: %v", err)
	}
}

func TestNoMemberRead(t *testing.T) {
	tests := []struct {
		members []policyview.Member
		fails   bool
	}{
		{members: nil, fails: true},
		{members: []policyview.Member{{Context: "a"}, {Context: "b"}}, fails: true},
		{members: []policyview.Member{{Context: "a"}, {Context: "b", Readable: true}}, fails: false},
	}
	for _, tt := range tests {
		if err := noMemberRead(tt.members); (err != nil) != tt.fails {
			t.Errorf("noMemberRead(%v) = %v, want failure %v", tt.members, err, tt.fails)
		}
	}
}
