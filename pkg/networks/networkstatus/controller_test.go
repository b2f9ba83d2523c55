package networkstatus

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/networks"
	"antreaplus.io/antreaplus/test/framework"
)

const timeout = 30 * time.Second

func network(name string, kind federationv1alpha1.NetworkKind, cidr, vpc string, flat ...federationv1alpha1.FlatConnection) *federationv1alpha1.Network {
	n := &federationv1alpha1.Network{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: federationv1alpha1.NetworkSpec{Kind: kind, CIDRs: []string{cidr}, Flat: flat}}
	if vpc != "" {
		n.Spec.Cloud = &federationv1alpha1.CloudNetwork{Provider: "AWS", VPCID: vpc}
	}
	return n
}

// waitValid waits until a Network's Valid condition has the reason wanted
// and says what it should.
func waitValid(t *testing.T, c client.Client, name, reason, says string) {
	t.Helper()
	framework.Eventually(t, timeout, func() error {
		n := &federationv1alpha1.Network{}
		if err := c.Get(t.Context(), client.ObjectKey{Name: name}, n); err != nil {
			return err
		}
		v := meta.FindStatusCondition(n.Status.Conditions, federationv1alpha1.NetworkConditionValid)
		if v == nil || v.Reason != reason || !strings.Contains(v.Message, says) || v.ObservedGeneration != n.Generation {
			return fmt.Errorf("Network %s: Valid %+v; want reason %s saying %q", name, v, reason, says)
		}
		return nil
	})
}

// Networks declared wrongly across objects say so, and say it no more once
// fixed: a flat connection to an overlapping Network of the member, a
// flat network of unknown ranges, a cloud network no account imports (until
// an interface of its VPC is imported).
func TestNetworkStatus(t *testing.T) {
	c := start(t)
	ns := clusters.Namespace(t, cluster)
	suffix := ns[len(ns)-5:]
	a, b, x, z := "aws.a-"+suffix, "aws.b-"+suffix, "aws.x-"+suffix, "aws.z-"+suffix
	objs := []client.Object{
		network(a, federationv1alpha1.NetworkOther, "10.0.0.0/16", "", federationv1alpha1.FlatConnection{Network: b}),
		network(b, federationv1alpha1.NetworkOther, "10.0.0.0/16", ""),
		network(x, federationv1alpha1.NetworkOther, "10.5.0.0/16", "", federationv1alpha1.FlatConnection{Network: "azure.far-" + suffix}),
		network(z, federationv1alpha1.NetworkCloud, "10.9.0.0/16", "vpc-"+suffix),
	}
	for _, o := range objs {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(t.Context(), o) })
	}
	waitValid(t, c, a, federationv1alpha1.ReasonAmbiguous, "overlap")
	waitValid(t, c, b, networks.ReasonValid, "nothing is flat-connected")
	waitValid(t, c, x, federationv1alpha1.ReasonMissingCIDRs, "is not treated as flat")
	waitValid(t, c, z, networks.ReasonNotImported, "no account of this member imports AWS VPC vpc-"+suffix)

	// b renumbered: a is no longer ambiguous.
	nb := &federationv1alpha1.Network{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: b}, nb); err != nil {
		t.Fatal(err)
	}
	framework.Update(t, c, nb, func() { nb.Spec.CIDRs = []string{"10.1.0.0/16"} })
	waitValid(t, c, a, networks.ReasonValid, "flat-connected to "+b)

	// An interface of z's VPC imported: z holds an enforcement point.
	nic := &cloudv1alpha1.NetworkInterface{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "eni-" + suffix},
		Spec: cloudv1alpha1.NetworkInterfaceSpec{Provider: cloudv1alpha1.ProviderAWS, CloudID: "eni-" + suffix, VirtualMachine: "vm",
			Region: "us-east-1", VPCID: "vpc-" + suffix}}
	if err := c.Create(t.Context(), nic); err != nil {
		t.Fatal(err)
	}
	waitValid(t, c, z, networks.ReasonValid, "nothing is flat-connected")
}
