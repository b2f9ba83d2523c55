package policyview

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

func TestStatusFindsEveryPolicyOfTheName(t *testing.T) {
	realized := antreaStatus(antreav1beta1.NetworkPolicyRealized, 1, 2, 2)
	snaps := []Snapshot{
		snap("m2", identity("acme", "eu-2"),
			withFNP(fnp("shop", "web", 1, fnpPhase(policyv1alpha1.FederatedPolicyRealized, 1))),
			withFNP(fnp("shop", "other", 1)),
			withNP(derived("shop", "web", 1, realized)),
			withNP(derived("shop", "other", 1, realized)),
			withNP(np("dev", "web", 1, realized)),
			withACNP(acnp("web", 1, realized)),
			withACNP(acnp("deny", 1, realized))),
		snap("m1", withNP(np("shop", "web", 1, realized))),
		snap("m3", unreachable("no answer")),
	}
	st := Status(snaps, "web")
	var got []string
	for _, d := range st.Policies {
		got = append(got, line(d.Row))
	}
	want := []string{
		"m1() NetworkPolicy shop/web - Realized 2/2 -",
		"m2(eu-2) ClusterNetworkPolicy /web - Realized 2/2 -",
		"m2(eu-2) NetworkPolicy dev/web - Realized 2/2 -",
		"m2(eu-2) FederatedNetworkPolicy shop/web fed Realized 0/0 0/0,refused:0",
		"m2(eu-2) NetworkPolicy shop/fnp-web from:web Realized 2/2 -",
	}
	if !slices.Equal(got, want) {
		t.Errorf("policies:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var members []string
	for _, m := range st.Members {
		members = append(members, memberLine(m))
	}
	wantMembers := []string{"m1 / readable 1", "m2 eu-2/acme readable 4", "m3 / unreadable 0 errors=[no answer]"}
	if !slices.Equal(members, wantMembers) {
		t.Errorf("members %v, want %v", members, wantMembers)
	}
	if st.Name != "web" {
		t.Errorf("name %q", st.Name)
	}
}

func TestStatusDetails(t *testing.T) {
	when := metav1.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	p := fnp("shop", "web", 1, fnpPhase(policyv1alpha1.FederatedPolicyPending, 1), points(true, false), sources(true, false), refused(1),
		fnpCondition(policyv1alpha1.ConditionTranslated, metav1.ConditionTrue, "Translated"),
		fnpCondition(policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionFalse, "Waiting"))
	p.Status.DerivedPolicy = "fnp-web"
	p.Status.Conditions[0].LastTransitionTime = when
	anp := np("shop", "web", 1, antreaStatus(antreav1beta1.NetworkPolicyFailed, 1, 1, 2))
	anp.Status.Conditions = []antreav1beta1.NetworkPolicyCondition{
		{Type: antreav1beta1.NetworkPolicyConditionRealizationFailure, Status: metav1.ConditionTrue, Reason: "NetworkPolicyRealizationFailedOnNode", Message: "node-2"},
	}
	st := Status([]Snapshot{snap("m", withFNP(p)), snap("n", withNP(anp))}, "web")
	if len(st.Policies) != 2 {
		t.Fatalf("policies %d, want 2", len(st.Policies))
	}
	fed, antrea := st.Policies[0], st.Policies[1]
	if fed.DerivedPolicy != "fnp-web" || len(fed.EnforcementPoints) != 2 || len(fed.RemoteSources) != 2 || len(fed.RefusedPeers) != 1 {
		t.Errorf("federated detail: %+v", fed)
	}
	wantConds := []Condition{
		{Type: "Translated", Status: "True", Reason: "Translated", Message: "Translated message", LastTransitionTime: &when},
		{Type: "RemotePeersResolved", Status: "False", Reason: "Waiting", Message: "Waiting message"},
	}
	if !slices.EqualFunc(fed.Conditions, wantConds, equalCondition) {
		t.Errorf("federated conditions %+v, want %+v", fed.Conditions, wantConds)
	}
	if antrea.Phase != "Failed" || antrea.Realized != 1 || antrea.Desired != 2 || antrea.Remote != nil || antrea.EnforcementPoints != nil {
		t.Errorf("antrea detail: %+v", antrea)
	}
	if len(antrea.Conditions) != 1 || antrea.Conditions[0].Type != "RealizationFailure" || antrea.Conditions[0].Message != "node-2" ||
		antrea.Conditions[0].LastTransitionTime != nil {
		t.Errorf("antrea conditions %+v", antrea.Conditions)
	}

	data, err := json.Marshal(fed)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"conditions":[{"type":"Translated","status":"True","reason":"Translated","message":"Translated message","lastTransitionTime":"2025-01-02T03:04:05Z"}`,
		`"derivedPolicy":"fnp-web"`, `"enforcementPoints":[{"name":"a","realized":true}`, `"remoteSources":[{"rule":"ingress[0]","kind":"RemoteEntities","name":"","resolved":true}`,
		`"refusedPeers":[{"rule":"ingress[1]","peer":0,"reason":"RemotePodsRefused","message":"m"}]`, `"kind":"FederatedNetworkPolicy"`} {
		if !strings.Contains(string(data), field) {
			t.Errorf("detail JSON lacks %s:\n%s", field, data)
		}
	}
}

func equalCondition(a, b Condition) bool {
	if (a.LastTransitionTime == nil) != (b.LastTransitionTime == nil) {
		return false
	}
	if a.LastTransitionTime != nil && !a.LastTransitionTime.Equal(b.LastTransitionTime) {
		return false
	}
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message
}

func TestStatusOfNoPolicy(t *testing.T) {
	st := Status([]Snapshot{snap("m", withNP(np("x", "a", 1, antreav1beta1.NetworkPolicyStatus{})))}, "web")
	data, _ := json.Marshal(st)
	if want := `{"name":"web","members":[{"context":"m","readable":true,"policies":0}],"policies":[]}`; string(data) != want {
		t.Errorf("JSON %s, want %s", data, want)
	}
}
