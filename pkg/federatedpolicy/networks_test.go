package federatedpolicy

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// A remote VM whose network overlaps the enforcing VM's, behind a NAT
// gateway: the Group holds the gateway's address, never the private one;
// a peering declared in the enforcing network's Network switches it to the
// private address, and removing it switches back. A VM with no usable
// address is said in the status.
func TestNetworksNATAndPeering(t *testing.T) {
	c := start(t)
	ns := clusters.Namespace(t, cluster)
	point := "azure.vnet-" + ns
	vnet := &federationv1alpha1.Network{ObjectMeta: metav1.ObjectMeta{Name: point}, Spec: federationv1alpha1.NetworkSpec{
		Kind: federationv1alpha1.NetworkCloud, CIDRs: []string{"10.0.0.0/16"},
		Cloud: &federationv1alpha1.CloudNetwork{Provider: "Azure", VPCID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/" + ns}}}
	t.Cleanup(func() { _ = c.Delete(ctx, vnet) })
	web := remoteEntity(ns, "member-1", "web-1", "web", "10.8.1.5")
	web.Spec.Network = "aws.vpc-nat"
	web.Spec.Addresses = []federationv1alpha1.EntityAddress{
		{IP: "10.8.1.5", Kind: federationv1alpha1.AddressPrivate, Network: "aws.vpc-nat"},
		{IP: "198.51.100.7", Kind: federationv1alpha1.AddressEgress, Via: "nat-0a"},
	}
	isolated := remoteEntity(ns, "member-1", "isolated", "web", "10.8.2.2")
	isolated.Spec.Network = "aws.vpc-nat"
	isolated.Spec.Addresses[0].Network = "aws.vpc-nat"
	create(t, c, vnet, localEntity(ns, "db", point, "10.0.1.5"), web, isolated,
		federatedPolicy(ns, "db", ingress("from-web", remoteRole("web"))))
	group := "fnp-db-ingress-0-peer-0"
	waitGroup := func(want string) {
		t.Helper()
		framework.Eventually(t, timeout, func() error {
			cidrs, err := groupCIDRs(c, ns, group)
			if err == nil && strings.Join(cidrs, " ") != want {
				err = fmt.Errorf("group holds %v, want %s", cidrs, want)
			}
			return err
		})
	}
	waitGroup("198.51.100.7/32")
	// The status is written after the derived objects: wait for it too.
	framework.Eventually(t, timeout, func() error {
		src := fnp(t, c, ns, "db").Status.RemoteSources
		if len(src) != 1 || len(src[0].Unusable) != 1 || !strings.Contains(src[0].Unusable[0], "isolated is in network aws.vpc-nat, which is not connected to network "+point) ||
			len(src[0].SharedEgress) != 1 || !strings.Contains(src[0].SharedEgress[0], "nat-0a") {
			return fmt.Errorf("remote sources %+v: want isolated unusable and the NAT gateway's address shared", src)
		}
		return nil
	})

	framework.Update(t, c, vnet, func() {
		vnet.Spec.Flat = []federationv1alpha1.FlatConnection{{Network: "aws.vpc-nat", CIDRs: []string{"10.8.0.0/16"}, Via: federationv1alpha1.ViaVPCPeering}}
	})
	waitGroup("10.8.1.5/32 10.8.2.2/32")
	framework.Eventually(t, timeout, func() error {
		return hasCondition(fnp(t, c, ns, "db"), policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionTrue, ReasonResolved)
	})

	framework.Update(t, c, vnet, func() { vnet.Spec.Flat = nil })
	waitGroup("198.51.100.7/32")
}

// The API server refuses Networks that cannot be right, saying why;
// nothing already stored changes.
func TestNetworkValidation(t *testing.T) {
	c := start(t)
	ns := clusters.Namespace(t, cluster)
	good := federationv1alpha1.NetworkSpec{Kind: federationv1alpha1.NetworkOther, CIDRs: []string{"10.0.0.0/16"}}
	for _, tc := range []struct {
		name string
		mod  func(*federationv1alpha1.NetworkSpec)
		want string
	}{
		{"invalid CIDR", func(s *federationv1alpha1.NetworkSpec) { s.CIDRs = []string{"10.0.0.0/33"} }, "must be a CIDR"},
		{"host bits", func(s *federationv1alpha1.NetworkSpec) { s.CIDRs = []string{"10.0.1.5/16"} }, "has host bits set"},
		{"flat to an overlapping network", func(s *federationv1alpha1.NetworkSpec) {
			s.Flat = []federationv1alpha1.FlatConnection{{Network: "aws.vpc-a", CIDRs: []string{"10.0.128.0/17"}}}
		}, "ambiguous"},
		{"cloud without its VPC", func(s *federationv1alpha1.NetworkSpec) { s.Kind = federationv1alpha1.NetworkCloud }, "cloud is set exactly when kind is Cloud"},
		{"flat to itself", func(s *federationv1alpha1.NetworkSpec) {
			s.Flat = []federationv1alpha1.FlatConnection{{Network: "net-" + ns, CIDRs: []string{"10.9.0.0/16"}}}
		}, "flat-connected to itself"},
		{"bad network name", func(s *federationv1alpha1.NetworkSpec) {
			s.Flat = []federationv1alpha1.FlatConnection{{Network: "AWS/VPC", CIDRs: []string{"10.9.0.0/16"}}}
		}, "must be a network's name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &federationv1alpha1.Network{ObjectMeta: metav1.ObjectMeta{Name: "net-" + ns}, Spec: *good.DeepCopy()}
			tc.mod(&n.Spec)
			err := c.Create(ctx, n)
			if err == nil {
				_ = c.Delete(ctx, n)
				t.Fatalf("created; want an error saying %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want it to say %q", err, tc.want)
			}
		})
	}
	// A valid one is stored; an invalid update leaves it as it was.
	n := &federationv1alpha1.Network{ObjectMeta: metav1.ObjectMeta{Name: "net-" + ns}, Spec: good}
	create(t, c, n)
	t.Cleanup(func() { _ = c.Delete(ctx, n) })
	bad := n.DeepCopy()
	bad.Spec.Flat = []federationv1alpha1.FlatConnection{{Network: "aws.vpc-a", CIDRs: []string{"10.0.0.0/8"}}}
	if err := c.Update(ctx, bad); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("update: %v; want it refused as ambiguous", err)
	}
	stored := &federationv1alpha1.Network{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(n), stored); err != nil || len(stored.Spec.Flat) != 0 {
		t.Errorf("stored %+v %v; want it unchanged", stored.Spec, err)
	}
}
