package agentless

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

// withServices makes a selector import the prod network's cloud-native
// services too.
func withServices(sel *cloudv1alpha1.CloudEntitySelector) *cloudv1alpha1.CloudEntitySelector {
	sel.Spec.CloudNativeServices = []cloudv1alpha1.CloudNativeServiceMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{Names: []string{"prod"}}}}
	return sel
}

// operatorGroup creates a security group the operator owns in the VPC.
func (c *cloud) operatorGroup(t *testing.T, name string) string {
	t.Helper()
	out, err := c.ec2.CreateSecurityGroup(t.Context(), &ec2.CreateSecurityGroupInput{GroupName: aws.String(name),
		Description: aws.String("the operator's"), VpcId: aws.String(c.vpc)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.GroupId)
}

// wantServiceGroups waits until the service (a DB identifier or a load
// balancer ARN) carries the operator's group ops and, when ingress is not
// nil, one managed group with exactly those ingress rules and no egress;
// with ingress nil, no managed group.
func (c *cloud) wantServiceGroups(t *testing.T, id, ops string, ingress []string) {
	t.Helper()
	eventually(t, func() error {
		ids, err := c.emu.ServiceGroups(region, id)
		if err != nil {
			return err
		}
		if !slices.Contains(ids, ops) {
			return fmt.Errorf("%s carries %v, without the operator's %s", id, ids, ops)
		}
		var managed []types.SecurityGroup
		if others := slices.DeleteFunc(slices.Clone(ids), func(g string) bool { return g == ops }); len(others) > 0 {
			out, err := c.ec2.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{GroupIds: others})
			if err != nil {
				return err
			}
			managed = out.SecurityGroups
		}
		switch {
		case ingress == nil && len(managed) == 0:
			return nil
		case ingress == nil:
			return fmt.Errorf("%s still carries managed groups %v", id, managed)
		case len(managed) != 1 || !strings.HasPrefix(aws.ToString(managed[0].GroupName), prefix):
			return fmt.Errorf("%s carries %v; want one managed group beside %s", id, ids, ops)
		}
		got := permissions(managed[0].IpPermissions)
		if strings.Join(got, "|") != strings.Join(ingress, "|") || len(managed[0].IpPermissionsEgress) != 0 {
			return fmt.Errorf("%s's managed group: ingress %v egress %v; want ingress %v and no egress", id, got, permissions(managed[0].IpPermissionsEgress), ingress)
		}
		return nil
	})
}

// wantNoManagedGroup waits until no managed group of the VPC has a name
// containing part.
func (c *cloud) wantNoManagedGroup(t *testing.T, part string) {
	t.Helper()
	eventually(t, func() error {
		out, err := c.ec2.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{
			{Name: aws.String("group-name"), Values: []string{prefix + "*"}}, {Name: aws.String("vpc-id"), Values: []string{c.vpc}}}})
		if err != nil {
			return err
		}
		var names []string
		for _, g := range out.SecurityGroups {
			names = append(names, aws.ToString(g.GroupName))
		}
		if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, part) }) {
			return fmt.Errorf("managed groups %v; want none named *%s*", names, part)
		}
		if len(names) == 0 {
			return fmt.Errorf("no managed group at all: the check would prove nothing")
		}
		return nil
	})
}

func TestAgentlessServices(t *testing.T) {
	ctx := t.Context()
	c := newCloud(t)
	c.addVM(t, "app-0")
	opsDB, opsLB := c.operatorGroup(t, "ops-db"), c.operatorGroup(t, "ops-lb")
	if _, err := c.emu.AddDBInstance(awsemu.DBInstanceSpec{Region: region, VPCID: c.vpc, Identifier: "orders",
		SecurityGroupIDs: []string{opsDB}, Tags: map[string]string{"Name": "orders"}}); err != nil {
		t.Fatal(err)
	}
	alb, err := c.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: c.vpc, Name: "web", Internal: true,
		SecurityGroupIDs: []string{opsLB}, Listeners: []awsemu.Listener{{Protocol: "HTTPS", Port: 443}}, Tags: map[string]string{"Name": "web"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: c.vpc, Name: "bare", Type: "network", Internal: true,
		Listeners: []awsemu.Listener{{Protocol: "TCP", Port: 5432}}, Tags: map[string]string{"Name": "bare"}}); err != nil {
		t.Fatal(err)
	}
	kube := clusters.Client(t, "member-1")
	ns := clusters.Namespace(t, "member-1")
	secret, account := awsAccount(ns, "aws", c.url)
	create(t, kube, secret, account, withServices(agentlessSelector(ns, "aws")))
	server, caFile, tokenFile := startPolicyController(t)
	startCloudController(t, server, caFile, tokenFile)

	// The database: the app network only, on its port.
	db := policyOn(ns, "orders", "orders", rule("app", antreav1beta1.RuleActionAllow, fromCIDR("10.10.0.0/16")),
		rule("deny-rest", antreav1beta1.RuleActionDrop))
	create(t, kube, db)
	c.wantServiceGroups(t, "orders", opsDB, []string{"tcp 5432-5432 10.10.0.0/16"})
	if st := wantStatus(t, kube, db, antreav1beta1.NetworkPolicyRealized, ""); st.CurrentNodesRealized != 1 || st.DesiredNodesRealized != 1 {
		t.Errorf("database policy status %+v; want realised on its 1 point", st)
	}

	// The load balancer: its listener; an egress rule is reported, never
	// applied, and the ingress rules still are.
	web := policyOn(ns, "web", "web", rule("corp", antreav1beta1.RuleActionAllow, fromCIDR("10.0.0.0/8"), tcp(443, 8443)),
		rule("deny-rest", antreav1beta1.RuleActionDrop))
	create(t, kube, web)
	c.wantServiceGroups(t, alb.ARN, opsLB, []string{"tcp 443-443 10.0.0.0/8"})
	wantStatus(t, kube, web, antreav1beta1.NetworkPolicyRealized, "")
	framework.Update(t, kube, web, func() {
		web.Spec.Egress = []antreav1beta1.Rule{rule("to-s3", antreav1beta1.RuleActionAllow, toCIDR("52.0.0.0/8"))}
	})
	wantStatus(t, kube, web, antreav1beta1.NetworkPolicyFailed, "EgressFromService")
	c.wantServiceGroups(t, alb.ARN, opsLB, []string{"tcp 443-443 10.0.0.0/8"})

	// An NLB created without security groups: said so.
	bare := policyOn(ns, "bare", "bare", rule("app", antreav1beta1.RuleActionAllow, fromCIDR("10.10.0.0/16")),
		rule("deny-rest", antreav1beta1.RuleActionDrop))
	create(t, kube, bare)
	wantStatus(t, kube, bare, antreav1beta1.NetworkPolicyFailed, "NoSecurityGroups")

	// Rules changed: the group changes in place.
	framework.Update(t, kube, db, func() { db.Spec.Ingress[0].From[0].IPBlock.CIDR = "10.10.1.0/24" })
	c.wantServiceGroups(t, "orders", opsDB, []string{"tcp 5432-5432 10.10.1.0/24"})

	// The policy deleted: our group detached and deleted, the operator's
	// kept.
	if err := kube.Delete(ctx, db); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c.wantServiceGroups(t, "orders", opsDB, nil)
	c.wantNoManagedGroup(t, ".svc-orders-")
	t.Logf("the database's group detached and deleted %s after its policy", time.Since(start).Round(100*time.Millisecond))

	// The load balancer deleted in the cloud: it stops being a point, its
	// group goes; one created is picked up on the next poll.
	if err := c.emu.DeleteLoadBalancer(region, alb.ARN); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	c.wantNoManagedGroup(t, ".svc-web-")
	t.Logf("the deleted load balancer's group deleted %s after it", time.Since(start).Round(100*time.Millisecond))
	again, err := c.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: region, VPCID: c.vpc, Name: "web", Internal: true,
		SecurityGroupIDs: []string{opsLB}, Listeners: []awsemu.Listener{{Protocol: "HTTPS", Port: 443}}, Tags: map[string]string{"Name": "web"}})
	if err != nil {
		t.Fatal(err)
	}
	c.wantServiceGroups(t, again.ARN, opsLB, []string{"tcp 443-443 10.0.0.0/8"})
	t.Logf("a load balancer created in the cloud protected %s after", time.Since(start).Round(100*time.Millisecond))

	// Resyncs of an unchanged cloud write nothing, services included.
	time.Sleep(resync)
	c.emu.ResetCalls()
	time.Sleep(2*resync + time.Second)
	for action, n := range c.emu.CallCounts() {
		if !strings.HasPrefix(action, "Describe") && n > 0 {
			t.Errorf("%d %s calls in resyncs where nothing changed; want none", n, action)
		}
	}
}

func TestAgentlessAzureLoadBalancer(t *testing.T) {
	c := newAzureCloud(t)
	web0, web1 := c.addVM(t, "web-0"), c.addVM(t, "web-1")
	if _, _, err := c.emu.AddLoadBalancer(azureemu.LoadBalancerSpec{VNetID: c.vnet, Name: "web-ilb",
		Rules:    []azureemu.LBRule{{Name: "https", Protocol: "Tcp", Port: 443, BackendPort: 8443}},
		Backends: []string{web0.NICs[0], web1.NICs[0]}, Tags: map[string]string{"Name": "web-ilb"}}); err != nil {
		t.Fatal(err)
	}
	kube := clusters.Client(t, "member-1")
	ns := clusters.Namespace(t, "member-1")
	secret, account := c.account(ns, "azure")
	create(t, kube, secret, account, withServices(agentlessSelector(ns, "azure")))
	server, caFile, tokenFile := startPolicyController(t)
	startCloudControllerWith(t, server, caFile, tokenFile, accountprovider.Options{RootCAs: c.roots,
		AzureMaxRetries: 2, AzureRetryDelay: time.Millisecond, AzureMaxRetryDelay: time.Second})

	// web-1 has a policy of its own: SSH from the admins.
	create(t, kube, policyOn(ns, "web-1-ssh", "web-1", rule("ssh", antreav1beta1.RuleActionAllow, fromCIDR("10.99.0.0/16"), tcp(22)),
		rule("deny-rest", antreav1beta1.RuleActionDrop)))
	lb := policyOn(ns, "web-ilb", "web-ilb", rule("partner", antreav1beta1.RuleActionAllow, fromCIDR("10.50.0.0/16")),
		rule("deny-rest", antreav1beta1.RuleActionDrop))
	create(t, kube, lb)
	// Enforced on the backends, on the backend port, health probes
	// allowed; web-0 (no policy of its own) keeps every other port open,
	// web-1 its own rules.
	c.wantInbound(t, web1.NICs[0], "Tcp 22 10.99.0.0/16", "Tcp 8443 10.50.0.0/16,168.63.129.16/32")
	c.wantInbound(t, web0.NICs[0], "Tcp 8443 10.50.0.0/16,168.63.129.16/32", "Tcp 0-8442 0.0.0.0/0", "Tcp 8444-65535 0.0.0.0/0",
		"Udp * 0.0.0.0/0", "Icmp * 0.0.0.0/0")
	wantStatus(t, kube, lb, antreav1beta1.NetworkPolicyRealized, "EnforcedOnBackendPool")
}

// wantInbound waits until the interface's managed NSG allows at least the
// inbound rules want ("Tcp 80 10.0.0.0/8": protocol, ports, sources) and
// no other rule from a source in none of want's.
func (c *azureCloud) wantInbound(t *testing.T, nic string, want ...string) {
	t.Helper()
	eventually(t, func() error {
		nsg, got, _, err := c.inbound(nic)
		if err != nil {
			return err
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				return fmt.Errorf("NSG %s allows inbound %v; want %q among them", nsg, got, w)
			}
		}
		return nil
	})
}
