package networks

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func testNetwork(name string, kind federationv1alpha1.NetworkKind, cidr string, flat ...federationv1alpha1.FlatConnection) federationv1alpha1.Network {
	n := federationv1alpha1.Network{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: federationv1alpha1.NetworkSpec{Kind: kind, CIDRs: []string{cidr}, Flat: flat}}
	if kind == federationv1alpha1.NetworkCloud {
		n.Spec.Cloud = &federationv1alpha1.CloudNetwork{Provider: "AWS", VPCID: strings.TrimPrefix(name, "aws.")}
	}
	return n
}

func flatTo(network string, cidrs ...string) federationv1alpha1.FlatConnection {
	return federationv1alpha1.FlatConnection{Network: network, CIDRs: cidrs}
}

func TestValidate(t *testing.T) {
	imported := map[string]bool{"AWS/vpc-a": true, "AWS/vpc-b": true}
	for _, tc := range []struct {
		name   string
		items  []federationv1alpha1.Network
		check  string
		reason string
		says   string
	}{
		{"flat to a remote network with its ranges",
			[]federationv1alpha1.Network{testNetwork("aws.vpc-a", federationv1alpha1.NetworkCloud, "10.0.0.0/16", flatTo("azure.x", "10.1.0.0/16"))},
			"aws.vpc-a", ReasonValid, "flat-connected to azure.x"},
		{"nothing flat",
			[]federationv1alpha1.Network{testNetwork("aws.vpc-a", federationv1alpha1.NetworkCloud, "10.0.0.0/16")},
			"aws.vpc-a", ReasonValid, "nothing is flat-connected"},
		{"flat to a local network of the same range (the CEL rule cannot see it)",
			[]federationv1alpha1.Network{
				testNetwork("aws.vpc-a", federationv1alpha1.NetworkCloud, "10.0.0.0/16", flatTo("aws.vpc-b")),
				testNetwork("aws.vpc-b", federationv1alpha1.NetworkCloud, "10.0.0.0/16")},
			"aws.vpc-a", federationv1alpha1.ReasonAmbiguous, "aws.vpc-a (10.0.0.0/16) and aws.vpc-b (10.0.0.0/16) overlap"},
		{"two flat peers overlapping each other",
			[]federationv1alpha1.Network{testNetwork("aws.vpc-a", federationv1alpha1.NetworkCloud, "10.0.0.0/16",
				flatTo("azure.x", "172.31.0.0/16"), flatTo("azure.y", "172.31.128.0/17"))},
			"aws.vpc-a", federationv1alpha1.ReasonAmbiguous, "azure.x (172.31.0.0/16) and azure.y (172.31.128.0/17) overlap"},
		{"a remote flat network without ranges",
			[]federationv1alpha1.Network{testNetwork("aws.vpc-a", federationv1alpha1.NetworkCloud, "10.0.0.0/16", flatTo("azure.x"))},
			"aws.vpc-a", federationv1alpha1.ReasonMissingCIDRs, "it is not treated as flat"},
		{"a VPC no account imports",
			[]federationv1alpha1.Network{testNetwork("aws.vpc-z", federationv1alpha1.NetworkCloud, "10.9.0.0/16")},
			"aws.vpc-z", ReasonNotImported, "no account of this member imports AWS VPC vpc-z"},
		{"a second cluster network",
			[]federationv1alpha1.Network{testNetwork("cluster.a", federationv1alpha1.NetworkCluster, "10.96.0.0/16"),
				testNetwork("cluster.b", federationv1alpha1.NetworkCluster, "10.97.0.0/16")},
			"cluster.b", ReasonSecondCluster, "Network cluster.a is this member's cluster network"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Validate(tc.items, imported)[tc.check]
			if got.Reason != tc.reason || got.Valid != (tc.reason == ReasonValid) || !strings.Contains(got.Message, tc.says) {
				t.Errorf("%s: %+v; want reason %s saying %q", tc.check, got, tc.reason, tc.says)
			}
		})
	}
}
