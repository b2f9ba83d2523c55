package view

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

func TestPoliciesOf(t *testing.T) {
	east := member("ctx-east", "east", false, "", "")
	east.Federated = []policyv1alpha1.FederatedNetworkPolicy{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db", Generation: 2},
		Status: policyv1alpha1.FederatedNetworkPolicyStatus{Phase: policyv1alpha1.FederatedPolicyRealized, ObservedGeneration: 2,
			RefusedPeers: []policyv1alpha1.RefusedPeer{{Rule: "ingress[0]", Peer: 0, Reason: "RemotePods", Message: "a federated policy never names remote Pods"}}}}}
	east.NetworkPolicies = []antreav1beta1.NetworkPolicy{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "fnp-db", Generation: 1, Labels: map[string]string{policyv1alpha1.LabelFederatedPolicy: "db"}},
			Status: antreav1beta1.NetworkPolicyStatus{Phase: antreav1beta1.NetworkPolicyRealized, ObservedGeneration: 1, CurrentNodesRealized: 2, DesiredNodesRealized: 2}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "new", Generation: 1}},
	}
	west := member("ctx-west", "west", false, "", "")
	west.Kinds["FederatedNetworkPolicies"] = KindState{State: NotInstalled}
	v := PoliciesOf([]*Member{west, east}, t0)
	states := map[string]string{}
	for _, p := range v.Policies {
		states[p.Kind+" "+p.Namespace+"/"+p.Name] = p.State
	}
	want := map[string]string{"FederatedNetworkPolicy shop/db": "Refused", "NetworkPolicy shop/fnp-db": "Realized", "NetworkPolicy ops/new": "Pending"}
	for k, s := range want {
		if states[k] != s {
			t.Errorf("%s: state %q, want %q (all: %v)", k, states[k], s, states)
		}
	}
	for _, p := range v.Policies {
		if p.Kind == "FederatedNetworkPolicy" && (len(p.RefusedPeers) != 1 || p.RefusedPeers[0].Reason != "RemotePods" ||
			p.Kubectl != "kubectl --context ctx-east get federatednetworkpolicies.policy.antreaplus.io -n shop db -o yaml") {
			t.Errorf("federated policy %+v", p)
		}
	}
	if len(v.Headers) != 2 || len(v.Headers[1].NotInstalled) != 1 {
		t.Errorf("headers %+v: west does not serve FederatedNetworkPolicies", v.Headers)
	}
}
