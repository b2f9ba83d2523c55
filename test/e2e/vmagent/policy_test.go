package vmagent

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

const (
	allow  = antreav1beta1.RuleActionAllow
	drop   = antreav1beta1.RuleActionDrop
	reject = antreav1beta1.RuleActionReject
	pass   = antreav1beta1.RuleActionPass
)

// trio is a web VM and two clients, each with a role label and a label
// unique to the test, so that policies select only them.
type trio struct {
	ns                 string
	web, client, other *vm
}

func newTrio(t *testing.T, l *lab) *trio {
	t.Helper()
	c := clusters.Client(t, cluster)
	ns := clusters.Namespace(t, cluster)
	labels := func(role string) map[string]string { return map[string]string{"app": role, "e2e": ns} }
	tr := &trio{ns: ns}
	tr.web = l.addVM(c, ns, "web", labels("web"))
	tr.client = l.addVM(c, ns, "client", labels("client"))
	tr.other = l.addVM(c, ns, "other", labels("other"))
	for _, v := range []*vm{tr.web, tr.client, tr.other} {
		v.startAgent()
	}
	return tr
}

// role selects the trio's VMs of one role.
func (tr *trio) role(role string) *metav1.LabelSelector { return entities("app", role, "e2e", tr.ns) }

// TestTiersPrioritiesAndActions applies policies in four tiers and checks,
// with real connections, that they decide as Antrea's would: the first
// matching rule in tier, then policy priority, then rule order decides; a
// Pass skips to the baseline tier; Reject answers at once, Drop is silent;
// ingress rules act on the receiving VM and egress rules on the sender.
func TestTiersPrioritiesAndActions(t *testing.T) {
	l := newLab(t)
	tr := newTrio(t, l)
	c := clusters.Client(t, cluster)
	web, client, other := tr.role("web"), tr.role("client"), tr.role("other")
	custom := fmt.Sprintf("e2e-%s", tr.ns)
	create(t, c,
		tier(custom, 20),
		acnp(tr.ns+"-custom", custom, 1, web, []antreav1beta1.Rule{rule(allow, from(client), tcp(8085))}, nil),
		acnp(tr.ns+"-secops", "securityops", 1, web, []antreav1beta1.Rule{
			rule(drop, from(client), tcp(8081)),
			rule(pass, from(client), tcp(8082), tcp(8083)),
			rule(reject, from(other), tcp(8080)),
			rule(drop, from(client), tcp(8085)),
		}, nil),
		anp(tr.ns, "app-first", "application", 1, web, []antreav1beta1.Rule{rule(drop, from(client), tcp(8084))}, nil),
		acnp(tr.ns+"-app", "application", 5, web, []antreav1beta1.Rule{
			rule(allow, from(client), tcp(8080), tcp(8081), tcp(8084), udp(5353)),
			rule(drop, from(client), tcp(8082)),
			rule(drop, tcp(8080), udp(5353)),
		}, nil),
		acnp(tr.ns+"-baseline", "baseline", 1, web, []antreav1beta1.Rule{rule(drop, from(client), tcp(8083))}, nil),
		acnp(tr.ns+"-egress", "application", 1, client, nil, []antreav1beta1.Rule{
			rule(reject, to(web), tcp(8086)),
			rule(drop, to(web), tcp(8087)),
		}),
	)
	tr.web.serve([]int{8080, 8081, 8082, 8083, 8084, 8085, 8086, 8087, 8088}, []int{5353})
	expectFlows(t, 60*time.Second,
		tcpFlow(tr.client, tr.web, 8080, connected), // application Allow
		tcpFlow(tr.client, tr.web, 8081, dropped),   // securityops Drop beats application Allow
		tcpFlow(tr.client, tr.web, 8082, connected), // Pass skips the application Drop; nothing in baseline
		tcpFlow(tr.client, tr.web, 8083, dropped),   // Pass, then the baseline Drop
		tcpFlow(tr.client, tr.web, 8084, dropped),   // policy priority 1 beats 5 in one tier
		tcpFlow(tr.client, tr.web, 8085, connected), // custom tier 20 beats securityops (100)
		tcpFlow(tr.client, tr.web, 8086, refused),   // egress Reject on the client
		tcpFlow(tr.client, tr.web, 8087, dropped),   // egress Drop on the client
		tcpFlow(tr.client, tr.web, 8088, connected), // no rule: allowed
		udpFlow(tr.client, tr.web, 5353, connected),
		tcpFlow(tr.other, tr.web, 8080, refused), // Reject: a TCP reset at once
		tcpFlow(tr.other, tr.web, 8081, connected),
		udpFlow(tr.other, tr.web, 5353, dropped), // application Drop of everyone else
	)
	for _, v := range []*vm{tr.web, tr.client} {
		st := v.waitRealized(t)
		t.Logf("agent of %s: %d rules applied at generation %d, %d events received", v.name, st.Report.AppliedRules,
			st.Report.AppliedGeneration, st.Events)
	}
	if got := l.metrics(); !slices.Contains(got, `antreaplus_policydistribution_connected_consumers{kind="Agent"} 3`) {
		t.Errorf("metrics do not count 3 connected agents:\n%s", strings.Join(got, "\n"))
	}
	// The agent's report, its version among it, reaches the VirtualMachine's status through the controller.
	_, agent := binaries(t)
	out, err := exec.Command(agent, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", agent, err)
	}
	version := strings.TrimSpace(string(out))
	framework.Eventually(t, 30*time.Second, func() error {
		vm := &cloudv1alpha1.VirtualMachine{}
		if err := c.Get(t.Context(), types.NamespacedName{Namespace: tr.ns, Name: "web"}, vm); err != nil {
			return err
		}
		a := vm.Status.Agent
		if a == nil || version == "" || a.Version != version || a.AppliedPolicyGeneration == 0 || len(a.Interfaces) != 1 || a.Interfaces[0] != "eth0" {
			return fmt.Errorf("status.agent = %+v", a)
		}
		for _, cond := range []string{cloudv1alpha1.VMConditionAgentConnected, cloudv1alpha1.ConditionPolicyRealized} {
			if !meta.IsStatusConditionTrue(vm.Status.Conditions, cond) {
				return fmt.Errorf("condition %s is not true: %+v", cond, vm.Status.Conditions)
			}
		}
		return nil
	})
}
