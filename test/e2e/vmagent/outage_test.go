package vmagent

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/vmagent"
	"antreaplus.io/antreaplus/test/framework"
)

// TestAgentsOutliveTheControlPlane stops the policy-controller: agents keep
// enforcing their rules. An agent restarted while it is down, on a VM whose
// ruleset was lost (as after a reboot), enforces the rules of its state
// file again. When the controller is back, agents resynchronise and apply
// the change made while it was down.
func TestAgentsOutliveTheControlPlane(t *testing.T) {
	l := newLab(t)
	tr := newTrio(t, l)
	c := clusters.Client(t, cluster)
	web, client := tr.role("web"), tr.role("client")
	policy := acnp(tr.ns+"-app", "application", 1, web, []antreav1beta1.Rule{rule(drop, from(client), tcp(9100))}, nil)
	create(t, c, policy)
	tr.web.serve([]int{9100, 9101}, nil)
	before := []flow{tcpFlow(tr.client, tr.web, 9100, dropped), tcpFlow(tr.client, tr.web, 9101, connected)}
	expectFlows(t, 60*time.Second, before...)
	tr.web.waitRealized(t)

	l.stopController()
	time.Sleep(4 * time.Second) // longer than the agents' heartbeat timeout
	expectFlowsNow(t, before...)

	// A change while the controller is down waits for it.
	current := &antreav1beta1.ClusterNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: policy.Name}}
	framework.Update(t, c, current, func() {
		current.Spec.Ingress = []antreav1beta1.Rule{rule(drop, from(client), tcp(9100), tcp(9101))}
	})

	// The web VM "reboots": its agent dies and its ruleset is lost.
	tr.web.agent.kill()
	if err := tr.web.ns.Run("nft", "delete", "table", "inet", vmagent.DefaultTable); err != nil {
		t.Fatal(err)
	}
	expectFlowsNow(t, tcpFlow(tr.client, tr.web, 9100, connected))
	tr.web.startAgent()
	expectFlows(t, 15*time.Second, before...) // the state file's rules, without a controller

	l.startController()
	expectFlows(t, 60*time.Second,
		tcpFlow(tr.client, tr.web, 9100, dropped),
		tcpFlow(tr.client, tr.web, 9101, dropped))
	st := tr.web.waitRealized(t)
	if st.Report.AppliedEpoch == "" {
		t.Errorf("agent status after the restart: %+v", st)
	}
	// The client's agent may be waiting out its backoff (up to 30 s,
	// jittered; measured: a 16 s wait after a 15 s outage).
	framework.Eventually(t, 40*time.Second, func() error {
		if a, err := tr.client.agentStatus(); err != nil || !a.Connected {
			return fmt.Errorf("client agent reconnected: %+v, %w", a, err)
		}
		return nil
	})
}
