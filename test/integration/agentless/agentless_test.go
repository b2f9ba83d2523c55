package agentless

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/test/framework"
)

func TestAgentlessEnforcement(t *testing.T) {
	ctx := t.Context()
	c := newCloud(t)
	web, db := c.addVM(t, "web-0"), c.addVM(t, "db-0")
	kube := clusters.Client(t, "member-1")
	ns := clusters.Namespace(t, "member-1")
	secret, account := awsAccount(ns, "aws", c.url)
	create(t, kube, secret, account, agentlessSelector(ns, "aws"))
	server, caFile, tokenFile := startPolicyController(t)
	startCloudController(t, server, caFile, tokenFile)
	eventually(t, func() error { // both VMs imported, agentless
		var ees antreav1alpha2.ExternalEntityList
		if err := kube.List(ctx, &ees, client.InNamespace(ns)); err != nil {
			return err
		}
		if len(ees.Items) != 2 || ees.Items[0].Spec.ExternalNode != agentlessNode {
			return fmt.Errorf("ExternalEntities: %d; want 2 agentless", len(ees.Items))
		}
		return nil
	})

	// An allow list: HTTP from 10/8, nothing else.
	webPolicy := policyOn(ns, "web", "web-0",
		rule("http", antreav1beta1.RuleActionAllow, fromCIDR("10.0.0.0/8"), tcp(80)),
		rule("deny-rest", antreav1beta1.RuleActionDrop))
	create(t, kube, webPolicy)
	group := c.wantGroup(t, web.NICs[0], "tcp 80-80 10.0.0.0/8")
	if !strings.HasPrefix(group.name, prefix+ns+".") || len(group.egress) != 2 {
		t.Errorf("group = %+v; want a managed name and egress open to IPv4 and IPv6", group)
	}
	// Realised on its one enforcement point (a first status may count none
	// while the compiler has not yet seen the ExternalEntity).
	eventually(t, func() error {
		if st := wantStatus(t, kube, webPolicy, antreav1beta1.NetworkPolicyRealized, ""); st.CurrentNodesRealized != 1 || st.DesiredNodesRealized != 1 {
			return fmt.Errorf("status = %+v; want realised on 1 of 1", st)
		}
		return nil
	})

	// A change updates the group in place.
	framework.Update(t, kube, webPolicy, func() {
		webPolicy.Spec.Ingress[0].Ports = nil
		tcp(80, 443)(&webPolicy.Spec.Ingress[0])
	})
	if again := c.wantGroup(t, web.NICs[0], "tcp 80-80 10.0.0.0/8", "tcp 443-443 10.0.0.0/8"); again.id != group.id {
		t.Errorf("the group was replaced (%s -> %s); want it changed in place", group.id, again.id)
	}
	if st := wantStatus(t, kube, webPolicy, antreav1beta1.NetworkPolicyRealized, ""); st.ObservedGeneration != webPolicy.Generation {
		t.Errorf("observedGeneration = %d; want %d", st.ObservedGeneration, webPolicy.Generation)
	}

	// A drop without a deny-all cannot be expressed: the status says so.
	dbPolicy := policyOn(ns, "db-no-ssh", "db-0", rule("no-ssh", antreav1beta1.RuleActionDrop, tcp(22)))
	create(t, kube, dbPolicy)
	st := wantStatus(t, kube, dbPolicy, antreav1beta1.NetworkPolicyFailed, "DenyNotExpressible")
	if st.DesiredNodesRealized != 1 || st.CurrentNodesRealized != 0 {
		t.Errorf("db status = %+v; want 0 of 1", st)
	}
	c.wantGroup(t, db.NICs[0], "-1 0-0 0.0.0.0/0", "-1 0-0 ::/0") // open: Antrea lets the rest through

	// 200 rules on one AWS group exceed its quota (60): reported on the
	// policy, never silently dropped, and the group left as it was.
	// (Two rules of 100 ports each: a policy holds at most 100 rules.)
	framework.Update(t, kube, dbPolicy, func() {
		dbPolicy.Spec.Ingress = nil
		for r := range 2 {
			ports := make([]int, 100)
			for i := range ports {
				ports[i] = 1000 + 2*(100*r+i)
			}
			dbPolicy.Spec.Ingress = append(dbPolicy.Spec.Ingress, rule(fmt.Sprintf("many-%d", r), antreav1beta1.RuleActionAllow, fromCIDR("10.0.0.0/8"), tcp(ports...)))
		}
		dbPolicy.Spec.Ingress = append(dbPolicy.Spec.Ingress, rule("deny-rest", antreav1beta1.RuleActionDrop))
	})
	if st := wantStatus(t, kube, dbPolicy, antreav1beta1.NetworkPolicyFailed, "quota of 60 rules"); st.CurrentNodesRealized != 0 {
		t.Errorf("db status with 200 rules = %+v; want 0 of 1 realised", st)
	}
	c.wantGroup(t, db.NICs[0], "-1 0-0 0.0.0.0/0", "-1 0-0 ::/0")

	// Drift: a rule added and the group detached by hand are reverted.
	if _, err := c.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(group.id),
		IpPermissions: []types.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(22), ToPort: aws.Int32(22),
			IpRanges: []types.IpRange{{CidrIp: aws.String("0.0.0.0/0")}}}}}); err != nil {
		t.Fatal(err)
	}
	c.wantGroup(t, web.NICs[0], "tcp 80-80 10.0.0.0/8", "tcp 443-443 10.0.0.0/8")
	others, err := c.emu.InterfaceGroups(region, web.NICs[0])
	if err != nil {
		t.Fatal(err)
	}
	var unmanaged []string
	for _, id := range others {
		if id != group.id {
			unmanaged = append(unmanaged, id)
		}
	}
	if _, err := c.ec2.ModifyNetworkInterfaceAttribute(ctx, &ec2.ModifyNetworkInterfaceAttributeInput{
		NetworkInterfaceId: aws.String(web.NICs[0]), Groups: unmanaged}); err != nil {
		t.Fatal(err)
	}
	c.wantGroup(t, web.NICs[0], "tcp 80-80 10.0.0.0/8", "tcp 443-443 10.0.0.0/8")

	// Resyncs of an unchanged cloud write nothing.
	c.emu.ResetCalls()
	time.Sleep(2*resync + time.Second)
	for action, n := range c.emu.CallCounts() {
		if !strings.HasPrefix(action, "Describe") && n > 0 {
			t.Errorf("%d %s calls in resyncs where nothing changed; want none", n, action)
		}
	}

	// A policy deleted: its group goes, the interface keeps its own.
	if err := kube.Delete(ctx, webPolicy); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() error {
		groups, err := c.managedGroups(ctx, web.NICs[0])
		if err != nil {
			return err
		}
		exists, err := c.groupNamed(ctx, group.name)
		if err != nil {
			return err
		}
		if len(groups) > 0 || exists {
			return fmt.Errorf("after the policy's deletion: attached %+v, group exists %v", groups, exists)
		}
		return nil
	})
	if now, err := c.emu.InterfaceGroups(region, web.NICs[0]); err != nil || strings.Join(now, ",") != strings.Join(unmanaged, ",") {
		t.Errorf("interface groups = %v, %v; want its own %v", now, err, unmanaged)
	}
}

func create(t *testing.T, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

// wantStatus waits until the policy has phase and, when reason is set, a
// RealizationFailure condition mentioning it.
func wantStatus(t *testing.T, c client.Client, p *antreav1beta1.NetworkPolicy, phase antreav1beta1.NetworkPolicyPhase, reason string) antreav1beta1.NetworkPolicyStatus {
	t.Helper()
	got := &antreav1beta1.NetworkPolicy{}
	eventually(t, func() error {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(p), got); err != nil {
			return err
		}
		st := got.Status
		if st.Phase != phase || st.ObservedGeneration != got.Generation {
			return fmt.Errorf("policy %s: status %+v; want phase %s at generation %d", p.Name, st, phase, got.Generation)
		}
		if reason == "" {
			return nil
		}
		for _, cond := range st.Conditions {
			if cond.Type == antreav1beta1.NetworkPolicyConditionRealizationFailure && strings.Contains(cond.Message, reason) {
				t.Logf("policy %s: %s", p.Name, cond.Message)
				return nil
			}
		}
		return fmt.Errorf("policy %s: conditions %+v; want a RealizationFailure with %s", p.Name, st.Conditions, reason)
	})
	p.Generation = got.Generation
	return got.Status
}
