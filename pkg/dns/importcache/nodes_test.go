package importcache

import (
	"net/netip"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func slimNode(name, zone, region string, cidrs []string, addrs ...string) *Node {
	n := &Node{Name: name, Zone: zone, Region: region}
	for _, c := range cidrs {
		n.PodCIDRs = append(n.PodCIDRs, netip.MustParsePrefix(c))
	}
	for _, a := range addrs {
		n.Addrs = append(n.Addrs, netip.MustParseAddr(a))
	}
	return n
}

func TestNodesLocate(t *testing.T) {
	type where struct {
		zone, region string
		found        bool
	}
	tests := []struct {
		name  string
		steps func(n *Nodes)
		ips   map[string]where
	}{
		{name: "by pod CIDR, by address, IPv6, unknown", steps: func(n *Nodes) {
			n.Set(slimNode("a", "eu-1a", "eu", []string{"10.244.1.0/24", "fd00:1::/64"}, "192.168.0.1"))
			n.Set(slimNode("b", "eu-1b", "eu", []string{"10.244.2.0/24"}, "192.168.0.2"))
			n.Set(slimNode("c", "us-1a", "us", []string{"10.245.0.0/16"}, "192.168.1.1"))
		}, ips: map[string]where{
			"10.244.1.9":        {"eu-1a", "eu", true},
			"::ffff:10.244.2.9": {"eu-1b", "eu", true},
			"fd00:1::9":         {"eu-1a", "eu", true},
			"192.168.1.1":       {"us-1a", "us", true},
			"10.245.77.1":       {"us-1a", "us", true},
			"172.16.0.1":        {"", "eu", false}, // the most common region
			"fd00:2::1":         {"", "eu", false},
			"192.168.0.3":       {"", "eu", false},
		}},
		{name: "a Node changed and one deleted", steps: func(n *Nodes) {
			n.Set(slimNode("a", "eu-1a", "eu", []string{"10.244.1.0/24"}, "192.168.0.1"))
			n.Set(slimNode("b", "us-1b", "us", []string{"10.244.2.0/24"}, "192.168.0.2"))
			n.Set(slimNode("c", "us-1c", "us", []string{"10.244.3.0/24"}))
			n.Set(slimNode("a", "eu-1z", "eu", []string{"10.244.9.0/24"}, "192.168.0.1"))
			n.Delete("c")
		}, ips: map[string]where{
			"10.244.1.1":  {"", "eu", false}, // a's old pod CIDR; tie between eu and us: eu
			"10.244.9.1":  {"eu-1z", "eu", true},
			"10.244.3.1":  {"", "eu", false},
			"192.168.0.2": {"us-1b", "us", true},
		}},
		{name: "retain after listing again", steps: func(n *Nodes) {
			n.Set(slimNode("a", "eu-1a", "eu", []string{"10.244.1.0/24"}))
			n.Set(slimNode("b", "us-1b", "us", []string{"10.244.2.0/24"}))
			n.Set(slimNode("c", "us-1c", "us", []string{"10.244.3.0/24"}))
			n.Retain(map[string]bool{"a": true})
		}, ips: map[string]where{
			"10.244.1.1": {"eu-1a", "eu", true},
			"10.244.2.1": {"", "eu", false},
		}},
		{name: "no Nodes", steps: func(*Nodes) {}, ips: map[string]where{"10.0.0.1": {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNodes()
			tt.steps(n)
			for ip, want := range tt.ips {
				var got where
				got.zone, got.region, got.found = n.Locate(netip.MustParseAddr(ip))
				if got != want {
					t.Errorf("Locate(%s) = %+v, want %+v", ip, got, want)
				}
			}
		})
	}
}

func TestConvertNode(t *testing.T) {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{
			corev1.LabelTopologyZone: "eu-1a", corev1.LabelTopologyRegion: "eu", "other": "x"}},
		Spec: corev1.NodeSpec{PodCIDR: "10.244.1.0/24", PodCIDRs: []string{"10.244.1.0/24", "fd00:1::5/64"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "192.168.0.1"}, {Type: corev1.NodeHostName, Address: "n1"}}},
	}
	got, err := NewConverter().Node(n)
	if err != nil {
		t.Fatal(err)
	}
	want := slimNode("n1", "eu-1a", "eu", []string{"10.244.1.0/24", "fd00:1::/64"}, "192.168.0.1")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Node() = %+v, want %+v", got, want)
	}
	n.Spec.PodCIDRs = nil
	got, _ = NewConverter().Node(n)
	if cidrs := got.(*Node).PodCIDRs; len(cidrs) != 1 || cidrs[0].String() != "10.244.1.0/24" {
		t.Errorf("with spec.podCIDR only: %v", cidrs)
	}
	if _, err := NewConverter().Node(&corev1.Pod{}); err == nil {
		t.Error("converting a Pod as a Node did not fail")
	}
}
