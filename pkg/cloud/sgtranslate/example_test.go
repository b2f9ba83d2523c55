package sgtranslate_test

import (
	"fmt"
	"net/netip"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/cloud/sgtranslate"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// The rules of one agentless VM: HTTPS allowed from 10.0.0.0/8, then a
// Drop of everything else. A security group holds the Allow, and the Drop
// is what a group does anyway for what it does not allow; a Drop that
// matched only part of the traffic could not be expressed, and would be a
// Finding. Each spec goes to the account's provider for its location.
func ExampleTranslate() {
	policy := wire.PolicyRef{Kind: string(policyrules.KindClusterNetworkPolicy), Name: "web"}
	loc := sgtranslate.Location{Account: types.NamespacedName{Namespace: "infra", Name: "aws"}, Region: "us-east-1", VPC: "vpc-0a1b"}
	ep := sgtranslate.Endpoint{
		Name:      "shop/nic-eni-0123",
		Interface: &sgtranslate.Interface{ID: "eni-0123", Location: loc},
		Rules: []wire.Rule{
			{Direction: policyrules.DirectionIngress, Action: policyrules.ActionAllow, Policy: policy, Name: "https",
				Peers: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
				Ports: []wire.Port{{Protocol: policyrules.ProtocolTCP, Port: 443}}},
			{Direction: policyrules.DirectionIngress, Action: policyrules.ActionDrop, Policy: policy, Name: "rest", RuleIndex: 1, AnyPeer: true},
		},
	}
	res := sgtranslate.Translate("antreaplus-", []sgtranslate.Endpoint{ep})
	for l, spec := range res.Specs {
		fmt.Println(l)
		for _, g := range spec.Groups {
			fmt.Printf("  %s ingress %+v egress %d rules\n", g.Name, g.Ingress, len(g.Egress))
		}
		fmt.Println("  attachments:", spec.Attachments)
		// providerOf(l.Account).SyncSecurityGroups(ctx, l.Region, spec)
	}
	for _, f := range res.Findings {
		fmt.Println(f.Endpoint, f.Severity, f.Reason)
	}
	// Output:
	// infra/aws/us-east-1/vpc-0a1b
	//   antreaplus-shop.nic-eni-0123 ingress [{Protocol:tcp FromPort:443 ToPort:443 CIDR:10.0.0.0/8 Group:}] egress 2 rules
	//   attachments: map[eni-0123:[antreaplus-shop.nic-eni-0123]]
}
