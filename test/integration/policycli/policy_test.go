package policycli

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policyview"
	"antreaplus.io/antreaplus/test/framework"
)

// policies are what the test writes: in member-1 (no FederatedNetworkPolicy
// CRD) an Antrea NetworkPolicy "web" whose status is of an older generation
// and a ClusterNetworkPolicy nobody wrote a status for; in member-2 (cluster
// eu-2 of federation acme) a FederatedNetworkPolicy "web" and the Antrea
// NetworkPolicy derived from it, each with a status.
type policies struct {
	ns1, ns2 string
}

func setUp(t *testing.T) policies {
	t.Helper()
	removeCRD(t, "member-1", "federatednetworkpolicies.policy.antreaplus.io")
	join(t, "member-2", "acme", "eu-2")
	p := policies{ns1: clusters.Namespace(t, "member-1"), ns2: clusters.Namespace(t, "member-2")}

	m1 := clusters.Client(t, "member-1")
	web := &antreav1beta1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns1, Name: "web"}, Spec: spec(5)}
	mustCreate(t, m1, web)
	framework.UpdateStatus(t, m1, web, func() { web.Status = realized(web.Generation, 2) })
	framework.Update(t, m1, web, func() { web.Spec.Priority = 6 }) // generation 2: the status is stale
	deny := &antreav1beta1.ClusterNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny-all"},
		Spec: antreav1beta1.ClusterNetworkPolicySpec{Tier: "securityops", Priority: 1.5,
			AppliedTo: []antreav1beta1.AppliedTo{{NamespaceSelector: &metav1.LabelSelector{}}},
			Ingress:   []antreav1beta1.Rule{{Action: ptr.To(antreav1beta1.RuleActionDrop)}}}}
	mustCreate(t, m1, deny)

	m2 := clusters.Client(t, "member-2")
	fnp := &policyv1alpha1.FederatedNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns2, Name: "web"}, Spec: spec(10)}
	mustCreate(t, m2, fnp)
	framework.UpdateStatus(t, m2, fnp, func() { fnp.Status = federatedStatus(fnp.Generation) })
	derived := &antreav1beta1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns2, Name: "fnp-web",
		Labels: map[string]string{policyview.FederatedPolicyLabel: "web", federationv1alpha1.LabelManagedBy: policyv1alpha1.ManagedByMemberController},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: policyv1alpha1.GroupVersion.String(), Kind: "FederatedNetworkPolicy",
			Name: fnp.Name, UID: fnp.UID, Controller: ptr.To(true)}}}, Spec: spec(10)}
	mustCreate(t, m2, derived)
	framework.UpdateStatus(t, m2, derived, func() { derived.Status = realized(derived.Generation, 2) })
	return p
}

// federatedStatus is a status as the member controller writes it: one of
// two enforcement points, one of two remote sources and a refused peer.
func federatedStatus(generation int64) policyv1alpha1.FederatedNetworkPolicyStatus {
	cond := func(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.Now(), ObservedGeneration: generation}
	}
	return policyv1alpha1.FederatedNetworkPolicyStatus{
		ObservedGeneration: generation, Phase: policyv1alpha1.FederatedPolicyPending, DerivedPolicy: "fnp-web",
		EnforcementPoints: []policyv1alpha1.EnforcementPointStatus{{Name: "antrea", Realized: true},
			{Name: "agent shop/vm-a", Reason: "NotReported", Message: "the agent has not reported generation 1"}},
		RemoteSources: []policyv1alpha1.RemoteSourceStatus{
			{Rule: "egress[0]/to-orders", Kind: "FederatedService", Name: "shop/orders", Resolved: true, Clusters: []string{"member-1"}, Addresses: 2},
			{Rule: "ingress[0]", Kind: "RemoteEntities", Name: "tag.cloud.antreaplus.io/role=build",
				Message: "no remote entity matches yet: export them with an EntityExport in their member"}},
		RefusedPeers: []policyv1alpha1.RefusedPeer{{Rule: "ingress[1]", Peer: 0, Reason: "RemotePodsRefused", Message: "remote Pods are not reachable"}},
		Conditions: []metav1.Condition{
			cond(policyv1alpha1.ConditionTranslated, metav1.ConditionTrue, "Translated", "fnp-web written"),
			cond(policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionFalse, "Waiting", "1 of 2 remote sources resolved"),
			cond(policyv1alpha1.ConditionPeersAccepted, metav1.ConditionFalse, "RemotePodsRefused", "1 peer refused"),
			cond(policyv1alpha1.ConditionRealized, metav1.ConditionFalse, "Pending", "1 of 2 enforcement points"),
		},
	}
}

func TestPolicyCommandsShowEveryMember(t *testing.T) {
	p := setUp(t)
	kubeconfig := withDeadContext(t)

	t.Run("list table", func(t *testing.T) {
		out, err := antreaplus(t, kubeconfig, "policy", "list", "--timeout", "3s")
		if err != nil {
			t.Fatalf("a dead member must not fail the listing: %v", err)
		}
		for _, want := range [][]string{
			{"CONTEXT", "CLUSTER", "ID", "KIND", "NAMESPACE", "NAME", "TIER", "PRIORITY", "FEDERATED", "PHASE", "REALIZED", "REMOTE", "REFUSED", "STALE"},
			{"member-1", "-", "ClusterNetworkPolicy", "-", "deny-all", "securityops", "1.5", "no", "-", "-", "-", "-", "no"},
			{"member-1", "-", "NetworkPolicy", p.ns1, "web", "application", "6", "no", "Realized", "2/2", "-", "-", "yes"},
			{"member-2", "eu-2", "FederatedNetworkPolicy", p.ns2, "web", "application", "10", "yes", "Pending", "1/2", "1/2", "1", "no"},
			{"member-2", "eu-2", "NetworkPolicy", p.ns2, "fnp-web", "application", "10", "from", "web", "Realized", "2/2", "-", "-", "no"},
		} {
			if _, ok := row(out, want...); !ok {
				t.Errorf("no row %v in:\n%s", want, out)
			}
		}
		for _, want := range []string{
			"dead: not read: reading https://127.0.0.1:",
			"member-1: CRDs not installed: FederatedNetworkPolicy (policy.antreaplus.io)",
			"3 policies in 2 of 3 member(s): 1 federated, 1 stale, 3 not realized (1 derived Antrea policies, not counted again where their federated policy is listed); 1 member(s) could not be read.",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("listing lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("list json", func(t *testing.T) {
		out, err := antreaplus(t, kubeconfig, "policy", "list", "-o", "json", "--timeout", "3s")
		if err != nil {
			t.Fatal(err)
		}
		var l policyview.Listing
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatal(err)
		}
		checkMembers(t, l.Members)
		rows := map[string]policyview.Row{}
		for _, r := range l.Policies {
			rows[r.Context+" "+r.Kind+" "+r.Name] = r
		}
		if len(rows) != 4 {
			t.Fatalf("%d rows, want 4: %+v", len(rows), l.Policies)
		}
		if r := rows["member-1 NetworkPolicy web"]; !r.Stale || r.Generation != 2 || r.ObservedGeneration != 1 || r.Namespace != p.ns1 || r.Remote != nil {
			t.Errorf("stale Antrea policy: %+v", r)
		}
		if r := rows["member-2 FederatedNetworkPolicy web"]; !r.Federated || r.ClusterID != "eu-2" || r.Realized != 1 || r.Desired != 2 || r.Stale ||
			r.Remote == nil || *r.Remote != (policyview.RemoteCounts{SourcesResolved: 1, SourcesTotal: 2, RefusedPeers: 1}) {
			t.Errorf("federated policy: %+v", r)
		}
		if r := rows["member-2 NetworkPolicy fnp-web"]; r.DerivedFrom != "web" || r.Federated || r.Phase != "Realized" {
			t.Errorf("derived policy: %+v", r)
		}
		want := policyview.Summary{Policies: 3, Federated: 1, Derived: 1, Stale: 1, NotRealized: 3, Members: 3, MembersRead: 2, MembersUnreadable: 1}
		if l.Summary != want {
			t.Errorf("summary %+v, want %+v", l.Summary, want)
		}
	})

	t.Run("status", func(t *testing.T) {
		out, err := antreaplus(t, kubeconfig, "policy", "status", "web", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var st policyview.PolicyStatus
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatal(err)
		}
		checkMembers(t, st.Members)
		var got []string
		for _, d := range st.Policies {
			got = append(got, d.Context+" "+d.Kind+" "+d.Name)
		}
		if want := "member-1 NetworkPolicy web,member-2 FederatedNetworkPolicy web,member-2 NetworkPolicy fnp-web"; strings.Join(got, ",") != want {
			t.Fatalf("policies %v, want %s", got, want)
		}
		fed, antrea := st.Policies[1], st.Policies[0]
		if fed.DerivedPolicy != "fnp-web" || len(fed.EnforcementPoints) != 2 || len(fed.RemoteSources) != 2 || len(fed.RefusedPeers) != 1 ||
			len(fed.Conditions) != 4 || fed.RemoteSources[0].Addresses != 2 || fed.RefusedPeers[0].Reason != "RemotePodsRefused" {
			t.Errorf("federated detail: %+v", fed)
		}
		if len(antrea.Conditions) != 1 || antrea.Conditions[0].Type != "Realizable" || antrea.Realized != 2 || antrea.Desired != 2 {
			t.Errorf("Antrea detail: %+v", antrea)
		}

		out, err = antreaplus(t, kubeconfig, "policy", "status", "web", "--context", "member-2", "-n", p.ns2)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"member-2 (cluster eu-2): FederatedNetworkPolicy " + p.ns2 + "/web",
			"Derived policy fnp-web", "Enforcement points: 1/2 realized", "NotReported", "Remote sources: 1/2 resolved",
			"no remote entity matches yet", "Refused peers: 1", "RemotePodsRefused", "RemotePeersResolved",
			"member-2 (cluster eu-2): NetworkPolicy " + p.ns2 + "/fnp-web", "Derived from the FederatedNetworkPolicy web", "Nodes 2/2 realized",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("status lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, p.ns1) || strings.Contains(out, "dead") {
			t.Errorf("--context member-2 shows other members:\n%s", out)
		}
	})

	t.Run("failures", func(t *testing.T) {
		out, err := antreaplus(t, kubeconfig, "policy", "list", "--context", "dead", "--timeout", "3s")
		if err == nil || !strings.Contains(err.Error(), "none of the 1 member(s) could be read") || !strings.Contains(out, "dead: not read: reading https://127.0.0.1:") {
			t.Errorf("only a dead member: error %v, output:\n%s", err, out)
		}
		_, err = antreaplus(t, kubeconfig, "policy", "status", "nothing", "--timeout", "3s")
		if err == nil || !strings.Contains(err.Error(), "no policy named nothing") {
			t.Errorf("unknown policy: error %v", err)
		}
		_, err = antreaplus(t, kubeconfig, "policy", "list", "--context", "member-9")
		if err == nil || !strings.Contains(err.Error(), `no context "member-9"`) {
			t.Errorf("unknown context: error %v", err)
		}
	})
}

func checkMembers(t *testing.T, members []policyview.Member) {
	t.Helper()
	byContext := map[string]policyview.Member{}
	for _, m := range members {
		byContext[m.Context] = m
	}
	if m := byContext["dead"]; m.Readable || len(m.Errors) == 0 {
		t.Errorf("dead member: %+v", m)
	}
	if m := byContext["member-1"]; !m.Readable || m.ClusterID != "" || strings.Join(m.NotInstalled, ",") != policyview.KindFederated {
		t.Errorf("member-1: %+v", m)
	}
	if m := byContext["member-2"]; !m.Readable || m.ClusterID != "eu-2" || m.FederationID != "acme" || len(m.NotInstalled) != 0 {
		t.Errorf("member-2: %+v", m)
	}
}
