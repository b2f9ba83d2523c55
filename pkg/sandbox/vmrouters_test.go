package sandbox

import (
	"fmt"
	"strings"
	"testing"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

func edge(vpc string) func(*cloudv1alpha1.VirtualMachine) {
	return func(vm *cloudv1alpha1.VirtualMachine) {
		vm.Spec.Tags = map[string]string{"env": edgeEnv}
		vm.Spec.VPCID = vpc
	}
}

// The edge VMs of both clouds share an address: planned on routers of
// their own, the one behind a NAT gateway leaving with its address, the
// one with a public IP reached at it; the bridge's VMs are left as they
// are.
func TestPlanRouted(t *testing.T) {
	aws := testInventory(awsMember, vm("i-flat", "dev-build-1", "10.20.0.5"), vm("i-web", "edge-web-1", "10.0.1.5", edge("vpc-edge")))
	for i := range aws.nics {
		if aws.nics[i].Spec.VirtualMachine == "i-web" && aws.nics[i].Spec.Primary {
			aws.nics[i].Spec.NATGatewayID, aws.nics[i].Spec.EgressIPs = "nat-1", []string{"198.18.255.10"}
		}
	}
	azure := testInventory(azureMember, vm("db", "edge-db-1", "10.0.1.10", onAzure, edge("vnet-edge")),
		vm("twin", "edge-twin-1", "10.0.1.5", onAzure, edge("vnet-edge")), vm("flat", "dev-build-1", "10.40.0.5", onAzure))
	for i := range azure.nics {
		if azure.nics[i].Spec.VirtualMachine == "db" && azure.nics[i].Spec.Primary {
			azure.nics[i].Spec.PublicIPs = []string{"198.19.0.9"}
		}
	}
	invs := []vmInventory{aws, azure}
	vms, err := planVMs("ap-1", invs)
	if err != nil {
		t.Fatal(err)
	}
	routed := planRouted("ap-1", vms, invs)
	var got []string
	for _, v := range vms {
		got = append(got, fmt.Sprintf("%s %s/%d %s via %q", v.Name, v.IP, v.PrefixLen, v.Network, v.Gateway))
	}
	for _, r := range routed {
		got = append(got, fmt.Sprintf("router %s %s %s/%d uplink %s nat %v public %v", r.Name, r.NetNS, r.Gateway, r.PrefixLen, r.linkAddr(2), r.NAT, r.Public))
	}
	want := []string{
		`azure-dev-build-1 10.40.0.5/10  via ""`,
		`dev-build-1 10.20.0.5/10  via ""`,
		`edge-db-1 10.0.1.10/24 azure.vnet-edge via "10.0.1.254"`,
		`edge-twin-1 10.0.1.5/24 azure.vnet-edge via "10.0.1.254"`,
		`edge-web-1 10.0.1.5/24 aws.vpc-edge via "10.0.1.254"`,
		"router aws.vpc-edge ap-1-rd03481 10.0.1.254/24 uplink 100.64.1.2 nat [198.18.255.10] public []",
		"router azure.vnet-edge ap-1-r2d6c4d 10.0.1.254/24 uplink 100.64.2.2 nat [] public [{198.19.0.9 10.0.1.10}]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rules := routed[0].routerRuleset() + routed[1].routerRuleset()
	for _, r := range []string{`oifname "up0" snat to 198.18.255.10`, `iifname "up0" ip daddr 198.19.0.9 dnat to 10.0.1.10`, `oifname "up0" ip saddr 10.0.1.10 snat to 198.19.0.9`} {
		if !strings.Contains(rules, r) {
			t.Errorf("the routers' rules lack %q:\n%s", r, rules)
		}
	}
}
