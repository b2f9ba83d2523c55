package fedpolicy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/test/framework"
)

// The edge networks of the sandbox (--networks, docs/networks.md):
// member-1's AWS VPC and member-2's Azure VNet are both 10.0.0.0/16 and
// not connected; AWS's edge-web-1 (10.0.1.5) leaves through its VPC's NAT
// gateway; Azure's edge-twin-1 has the same 10.0.1.5; edge-db-1 is reached
// at its public IP.
const (
	edgeNAT     = "198.18.255.10"
	edgeNewNAT  = "198.18.255.20"
	edgePolicy  = "edge-db"
	edgeTwinIP  = "10.0.1.5"
	edgeDBPort  = ":8080"
	edgeExports = "edge-vms"
)

// edgeDBPublic is edge-db-1's public address, as member-2 imported it.
func edgeDBPublic(t testing.TB) string {
	t.Helper()
	nics := &cloudv1alpha1.NetworkInterfaceList{}
	if err := cl("member-2").List(bg, nics, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, n := range nics.Items {
		if n.Spec.VirtualMachine == vm(t, "edge-db-1").Object && len(n.Spec.PublicIPs) > 0 {
			return n.Spec.PublicIPs[0]
		}
	}
	t.Fatal("edge-db-1 has no public IP in member-2's inventory")
	return ""
}

// edgeNetworkPolicy, in member-2, lets only the edge web VMs of other
// members reach edge-db-1 on 8080, and lets edge-db-1 reach them.
func edgeNetworkPolicy() *policyv1alpha1.FederatedNetworkPolicy {
	web := edgeWebPeer()
	p := federatedPolicy(ns, edgePolicy, appliedToVM(azureAccount, "edge-db-1"), allowIn(8080, web), dropIn("0.0.0.0/0"))
	p.Spec.Egress = append(p.Spec.Egress, allowOutRule(web))
	return p
}

// testNetworks: the overlapping estate. The remote VM is admitted by its
// NAT gateway's address (connected), the local VM with its private address
// is not (dropped), the status says the gateway admits everything behind
// it, and why edge-db-1 cannot reach edge-web-1 (private only, not
// connected). The Networks say which network is whose and what is flat.
func testNetworks(t *testing.T) {
	t.Parallel()
	public := edgeDBPublic(t) + edgeDBPort
	waitProbe(t, "edge-web-1", public, connected, 10*time.Second)
	expectProbe(t, "edge-twin-1", "edge-db-1"+edgeDBPort, connected)

	p := edgeSetup(t)
	waitProbe(t, "edge-twin-1", "edge-db-1"+edgeDBPort, dropped, 30*time.Second)
	expectProbe(t, "edge-web-1", public, connected)
	if got := derivedCIDRs(t, "member-2", ns, edgePolicy); !slices.Equal(got, []string{edgeNAT + "/32"}) {
		t.Errorf("the Groups of fnp-%s hold %v; want only the NAT gateway's %s (never %s, edge-twin-1's address here)", edgePolicy, got, edgeNAT, edgeTwinIP)
	}
	in, out := p.Status.RemoteSources[0], p.Status.RemoteSources[1]
	if len(in.SharedEgress) != 1 || !strings.Contains(in.SharedEgress[0], edgeNAT+" is NAT gateway nat-") {
		t.Errorf("ingress source %+v: want the NAT gateway's address said to admit every host behind it", in)
	}
	if out.Resolved || len(out.Unusable) != 1 || !strings.Contains(out.Unusable[0], "(edge-web-1)") ||
		!strings.Contains(out.Unusable[0], "which is not connected to network azure.edge-") || !strings.Contains(out.Unusable[0], "give it a public IP, or declare the peering") {
		t.Errorf("egress source %+v: want edge-web-1 said unusable (private only, not connected) and how to fix it", out)
	}

	// Agentless alike: a policy of member-1 on prod-web-2 (an AWS VM
	// without agent) lets member-2's edge-db-1 in on 8443, and drops the
	// rest: the security group holds edge-db-1's public address (how it
	// arrives: it is not in a network connected to the prod VPC), never
	// 10.0.1.10 or 10.0.1.5.
	create(t, "member-2", &federationv1alpha1.EntityExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: edgeExports},
		Spec: federationv1alpha1.EntityExportSpec{ExternalEntitySelector: metav1.LabelSelector{MatchLabels: map[string]string{"tag.cloud.antreaplus.io/env": "edge"}}}})
	const agentlessPolicy = "web-1-from-edge"
	dbPeer := edgeWebPeer()
	dbPeer.ExternalEntitySelector.MatchLabels["tag.cloud.antreaplus.io/role"] = "edge-db"
	create(t, "member-1", federatedPolicy(ns, agentlessPolicy, appliedToVM(awsAccount, "prod-web-2"), allowIn(8443, dbPeer), dropIn("0.0.0.0/0")))
	c := ec2Client(t)
	eni := primaryInterface(t, instanceNamed(t, c, "prod-web-2"))
	dbPublic := strings.TrimSuffix(public, edgeDBPort) + "/32"
	framework.EventuallyEvery(t, 60*time.Second, time.Second, func() error {
		rules, err := ingressCIDRs(t, c, eni)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(rules, func(r string) bool { return strings.HasSuffix(r, " tcp/8443 from "+dbPublic) }) {
			return fmt.Errorf("the security groups of prod-web-2 (%s) hold %v, want tcp/8443 from %s (edge-db-1's public address)", eni, rules, dbPublic)
		}
		if slices.ContainsFunc(rules, func(r string) bool {
			return strings.HasSuffix(r, " 10.0.1.10/32") || strings.HasSuffix(r, " "+edgeTwinIP+"/32")
		}) {
			return fmt.Errorf("the security groups of prod-web-2 (%s) name an edge private address: %v", eni, rules)
		}
		return nil
	})

	// Each member's Networks: the edge networks are nobody's flat peers.
	for _, cluster := range []string{"member-1", "member-2"} {
		nets := &federationv1alpha1.NetworkList{}
		if err := cl(cluster).List(bg, nets); err != nil {
			t.Fatal(err)
		}
		for _, n := range nets.Items {
			for _, f := range n.Spec.Flat {
				if strings.Contains(f.Network, "edge") || (strings.Contains(n.Name, "edge") && len(n.Spec.Flat) > 0) {
					t.Errorf("%s: Network %s is flat to %s: the edge networks overlap and are not connected", cluster, n.Name, f.Network)
				}
			}
		}
	}
}

// edgeSetup exports member-1's edge VMs and applies edgeNetworkPolicy in
// member-2, and waits until it is realised, its ingress peer resolved.
func edgeSetup(t *testing.T) *policyv1alpha1.FederatedNetworkPolicy {
	t.Helper()
	create(t, "member-1", &federationv1alpha1.EntityExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: edgeExports},
		Spec: federationv1alpha1.EntityExportSpec{ExternalEntitySelector: metav1.LabelSelector{MatchLabels: map[string]string{"tag.cloud.antreaplus.io/env": "edge"}}}})
	create(t, "member-2", edgeNetworkPolicy())
	return waitFNP(t, "member-2", ns, edgePolicy, 30*time.Second, allOf(realized, func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		if len(p.Status.RemoteSources) != 2 || !p.Status.RemoteSources[0].Resolved || !slices.Equal(p.Status.RemoteSources[0].Clusters, []string{"member-1"}) {
			return fmt.Errorf("remote sources %+v: want the ingress one resolved from member-1", p.Status.RemoteSources)
		}
		return nil
	}))
}

// testNATReplaced: member-1's operator replaces the edge VPC's NAT gateway
// through the EC2 API. member-2's agent on edge-db-1 follows: the new
// address is admitted and the old one is not (edge-web-1, still leaving
// with the old address until the sandbox's router is told, is dropped),
// then connected again once it leaves with the new one. Then a peering of
// the edge VPC with the dev VPC, requested and accepted through the API,
// shows in member-1's Network of the edge VPC, and goes when deleted.
func testNATReplaced(t *testing.T) {
	edgeSetup(t)
	c := ec2Client(t)
	web := instanceNamed(t, c, "edge-web-1")
	eip, err := c.AllocateAddress(bg, &ec2.AllocateAddressInput{Address: aws.String(edgeNewNAT)})
	if err != nil {
		t.Fatal(err)
	}
	nat, err := c.CreateNatGateway(bg, &ec2.CreateNatGatewayInput{SubnetId: web.SubnetId, AllocationId: eip.AllocationId})
	if err != nil {
		t.Fatal(err)
	}
	table := routeTableOf(t, c, aws.ToString(web.VpcId))
	start := time.Now()
	if _, err := c.ReplaceRoute(bg, &ec2.ReplaceRouteInput{RouteTableId: aws.String(table), DestinationCidrBlock: aws.String("0.0.0.0/0"),
		NatGatewayId: nat.NatGateway.NatGatewayId}); err != nil {
		t.Fatal(err)
	}
	waitFNP(t, "member-2", ns, edgePolicy, 60*time.Second, func(*policyv1alpha1.FederatedNetworkPolicy) error {
		if got := derivedCIDRs(t, "member-2", ns, edgePolicy); !slices.Equal(got, []string{edgeNewNAT + "/32"}) {
			return fmt.Errorf("the Groups hold %v, want %s/32", got, edgeNewNAT)
		}
		return nil
	})
	public := edgeDBPublic(t) + edgeDBPort
	waitProbe(t, "edge-web-1", public, dropped, 30*time.Second)
	t.Logf("the NAT gateway replaced in member-1's cloud: enforced by member-2's agent %s later", time.Since(start).Round(100*time.Millisecond))
	antreaplus(t, sbx.up...) // the sandbox's router now leaves with the new address
	waitProbe(t, "edge-web-1", public, connected, 30*time.Second)

	dev := instanceNamed(t, c, "dev-build-1")
	pcx, err := c.CreateVpcPeeringConnection(bg, &ec2.CreateVpcPeeringConnectionInput{VpcId: web.VpcId, PeerVpcId: dev.VpcId})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AcceptVpcPeeringConnection(bg, &ec2.AcceptVpcPeeringConnectionInput{VpcPeeringConnectionId: pcx.VpcPeeringConnection.VpcPeeringConnectionId}); err != nil {
		t.Fatal(err)
	}
	edgeNet := inventory.NetworkName("AWS", aws.ToString(web.VpcId))
	devNet := inventory.NetworkName("AWS", aws.ToString(dev.VpcId))
	waitFlat := func(want bool) {
		t.Helper()
		waitFNP(t, "member-2", ns, edgePolicy, 60*time.Second, func(*policyv1alpha1.FederatedNetworkPolicy) error {
			n := &federationv1alpha1.Network{}
			if err := cl("member-1").Get(bg, client.ObjectKey{Name: edgeNet}, n); err != nil {
				return err
			}
			has := slices.ContainsFunc(n.Spec.Flat, func(f federationv1alpha1.FlatConnection) bool {
				return f.Network == devNet && f.Via == federationv1alpha1.ViaVPCPeering && f.ID == aws.ToString(pcx.VpcPeeringConnection.VpcPeeringConnectionId)
			})
			if has != want {
				return fmt.Errorf("Network %s flat %+v: want the peering with %s %v", edgeNet, n.Spec.Flat, devNet, want)
			}
			return nil
		})
	}
	waitFlat(true)
	if _, err := c.DeleteVpcPeeringConnection(bg, &ec2.DeleteVpcPeeringConnectionInput{VpcPeeringConnectionId: pcx.VpcPeeringConnection.VpcPeeringConnectionId}); err != nil {
		t.Fatal(err)
	}
	waitFlat(false)
}

// routeTableOf is the id of a VPC's main route table.
func routeTableOf(t testing.TB, c *ec2.Client, vpc string) string {
	t.Helper()
	out, err := c.DescribeRouteTables(bg, &ec2.DescribeRouteTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range out.RouteTables {
		if aws.ToString(rt.VpcId) == vpc {
			return aws.ToString(rt.RouteTableId)
		}
	}
	t.Fatalf("no route table of %s", vpc)
	return ""
}
