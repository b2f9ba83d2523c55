package fedpolicy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// testRefusals: what a federated policy refuses, what an ordinary Antrea
// policy never sees, and what a federated policy waits for. Every policy
// applies to azure-dev-build-1, one after the other.
func testRefusals(t *testing.T) {
	t.Parallel()
	t.Run("remote Pods", testRemotePodsRefused)
	t.Run("Antrea policy", testAntreaPolicyIgnoresClusterSet)
	t.Run("awaited Service", testAwaitedService)
	t.Run("not exported here", testNotExportedHere)
}

func testRemotePodsRefused(t *testing.T) {
	const name = "remote-pods"
	create(t, "member-2", federatedPolicy(ns, name, appliedToVM(azureAccount, "dev-build-1"),
		allowIn(8080, remotePods("builder")), dropIn("10.20.0.0/16")))
	p := waitFNP(t, "member-2", ns, name, 30*time.Second, allOf(realized, func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		return conditionIs(p, policyv1alpha1.ConditionPeersAccepted, metav1.ConditionFalse, "RemotePodsRefused")
	}))
	if r := p.Status.RefusedPeers; len(r) != 1 || r[0].Rule != "ingress[0]" || r[0].Peer != 0 || r[0].Reason != "RemotePodsRefused" || !strings.Contains(r[0].Message, "federated Service") {
		t.Errorf("refused peers = %+v, want ingress[0] peer 0 RemotePodsRefused, saying to use a federated Service\n%s", r, statusJSON(p))
	}
	// Nothing is realised from the refused peer: its rule is left out, not
	// widened to every peer.
	if d := derivedPolicy(t, "member-2", ns, name); len(d.Spec.Ingress) != 1 || *d.Spec.Ingress[0].Action != antreav1beta1.RuleActionDrop {
		t.Errorf("the derived policy's ingress rules are %+v, want the Drop rule alone", d.Spec.Ingress)
	}
	waitProbe(t, "dev-build-2", "azure-dev-build-1:8080", dropped, 30*time.Second)
	d := federatedDetail(t, policyStatus(t, "member-2", ns, name))
	if d.Remote == nil || d.Remote.RefusedPeers != 1 || len(d.RefusedPeers) != 1 || d.RefusedPeers[0].Reason != "RemotePodsRefused" {
		t.Errorf("policy status %s shows the refused peers %+v (counted %+v), want one RemotePodsRefused", name, d.RefusedPeers, d.Remote)
	}
}

// testAntreaPolicyIgnoresClusterSet: an Antrea NetworkPolicy with the very
// peer of the ingress test never allows the remote VM, which member-2 has
// imported all the same.
func testAntreaPolicyIgnoresClusterSet(t *testing.T) {
	const name = "plain-clusterset"
	remote := remoteEntity(t, "member-2", "member-1", "dev-build-1")
	if remote == nil {
		t.Fatal("member-2 has not imported dev-build-1")
	}
	create(t, "member-2", antreaPolicy(ns, name, appliedToVM(azureAccount, "dev-build-1"),
		allowIn(8080, remoteVM("member-1", "dev-build-1")), dropIn("0.0.0.0/0")))
	p := &antreav1beta1.NetworkPolicy{}
	framework.Eventually(t, 30*time.Second, func() error {
		if err := cl("member-2").Get(bg, client.ObjectKey{Namespace: ns, Name: name}, p); err != nil {
			return err
		}
		if p.Status.Phase != antreav1beta1.NetworkPolicyRealized || p.Status.ObservedGeneration != p.Generation {
			return fmt.Errorf("NetworkPolicy %s: phase %q for generation %d", name, p.Status.Phase, p.Status.ObservedGeneration)
		}
		return nil
	})
	waitProbe(t, "dev-build-1", "azure-dev-build-1:8080", dropped, 30*time.Second)
	rules := nftRules(t, "azure-dev-build-1")
	if !strings.Contains(rules, name) {
		t.Fatalf("the agent of azure-dev-build-1 does not enforce %s:\n%s", name, rules)
	}
	for _, ip := range endpointIPs(remote) {
		if strings.Contains(rules, ip) {
			t.Errorf("the agent of azure-dev-build-1 lets %s (dev-build-1) in through an Antrea policy:\n%s", ip, rules)
		}
	}
	var warned bool
	for _, c := range p.Status.Conditions {
		warned = warned || strings.Contains(c.Message, "ClusterSet is ignored")
	}
	if !warned {
		t.Errorf("NetworkPolicy %s's status does not warn that scope ClusterSet is ignored: %+v", name, p.Status.Conditions)
	}
}

// testAwaitedService: a federated Service nobody exports yet matches
// nothing, and the policy says it waits; once exported, it resolves.
func testAwaitedService(t *testing.T) {
	const name = "echo-2-egress"
	create(t, "member-2", federatedPolicy(ns, name, appliedToVM(azureAccount, "dev-build-1"),
		allowToServices(federatedService("vm-echo-2")), dropOut("10.0.0.0/8")))
	p := waitFNP(t, "member-2", ns, name, 30*time.Second, allOf(realized, resolved(), func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		return conditionIs(p, policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionFalse, "AwaitingRemoteSources")
	}))
	if msg := p.Status.RemoteSources[0].Message; !strings.Contains(msg, "no member exports") {
		t.Errorf("the awaited source says %q, want that no member exports the Service", msg)
	}
	if cidrs := derivedCIDRs(t, "member-2", ns, name); len(cidrs) != 0 {
		t.Errorf("the Groups of fnp-%s hold %v before anyone exports vm-echo-2", name, cidrs)
	}
	waitProbe(t, "azure-dev-build-1", "dev-build-2:8080", dropped, 30*time.Second)

	exportVMService(t, "vm-echo-2", "dev-build-2")
	waitFNP(t, "member-2", ns, name, 30*time.Second, allOf(realized, resolved("member-1"), func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		return conditionIs(p, policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionTrue, "Resolved")
	}))
	waitProbe(t, "azure-dev-build-1", "dev-build-2:8080", connected, 30*time.Second)
	expectProbe(t, "azure-dev-build-1", "dev-build-3:8080", dropped)
}

// testNotExportedHere: an EntityExport of member-1 scoped to member-3 is
// never imported into member-2, whose federated policy names member-1 as
// not exporting to it, in its status and in antreaplus policy status; the
// export deleted, the line goes.
func testNotExportedHere(t *testing.T) {
	const name = "not-exported-here"
	exp := &federationv1alpha1.EntityExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "to-member-3"},
		Spec: federationv1alpha1.EntityExportSpec{
			ExternalEntitySelector: metav1.LabelSelector{MatchLabels: map[string]string{"tag.cloud.antreaplus.io/env": "member-3-only"}},
			Scope:                  &federationv1alpha1.ExportScope{ClusterIDs: []string{"member-3"}}}}
	create(t, "member-1", exp)
	peer := antreav1beta1.NetworkPolicyPeer{Scope: antreav1beta1.ScopeClusterSet, ExternalEntitySelector: &metav1.LabelSelector{
		MatchLabels: map[string]string{"tag.cloud.antreaplus.io/env": "member-3-only"}}}
	policy := federatedPolicy(ns, name, appliedToVM(azureAccount, "dev-build-1"), allowIn(9999, peer))
	create(t, "member-2", policy)
	defer remove(t, "member-2", policy)
	const line = "member-1 (its export's scope leaves this member out)"
	notExported := func(want bool) func(*policyv1alpha1.FederatedNetworkPolicy) error {
		return func(p *policyv1alpha1.FederatedNetworkPolicy) error {
			if len(p.Status.RemoteSources) != 1 {
				return fmt.Errorf("%d remote sources, want 1", len(p.Status.RemoteSources))
			}
			if got := slices.Contains(p.Status.RemoteSources[0].NotExportedHere, line); got != want {
				return fmt.Errorf("notExportedHere %q, want %q listed: %t", p.Status.RemoteSources[0].NotExportedHere, line, want)
			}
			return nil
		}
	}
	waitFNP(t, "member-2", ns, name, 30*time.Second, notExported(true))
	if out := antreaplus(t, "policy", "status", name, "-n", ns, "--context", "member-2"); !strings.Contains(out, "not exported to this member by "+line) {
		t.Errorf("antreaplus policy status %s does not say member-1 does not export to member-2:\n%s", name, out)
	}
	remove(t, "member-1", exp)
	waitFNP(t, "member-2", ns, name, 30*time.Second, notExported(false))
}
