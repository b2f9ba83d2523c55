package feeder

import (
	"net/netip"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	toolscache "k8s.io/client-go/tools/cache"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

func entity(name, node, ip string) *antreav1alpha2.ExternalEntity {
	return &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": name}},
		Spec:       antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: ip}}, ExternalNode: node},
	}
}

func dropFromClientPolicy() *antreav1beta1.ClusterNetworkPolicy {
	action := antreav1beta1.RuleActionDrop
	p := intstr.FromInt32(80)
	return &antreav1beta1.ClusterNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: antreav1beta1.ClusterNetworkPolicySpec{Priority: 1,
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
			Ingress: []antreav1beta1.Rule{{Action: &action, Ports: []antreav1beta1.NetworkPolicyPort{{Port: &p}},
				From: []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "client"}}}}}}},
	}
}

func TestFeederPublishesRulesAndAddressChanges(t *testing.T) {
	hub := policydistribution.NewHub()
	hub.SetReady()
	f := New(Options{Hub: hub})
	scope := policydistribution.Scope{Namespace: "ns", Node: "vm-web"}
	f.enqueue(entity("web", "vm-web", "10.0.0.1"), false)
	f.enqueue(entity("client", "vm-client", "10.0.0.2"), false)
	f.enqueue(dropFromClientPolicy(), false)
	f.enqueue(&corev1.ConfigMap{}, false) // not the compiler's: ignored
	f.process()
	eps := hub.Endpoints(scope)
	if len(eps) != 1 || len(eps[0].Order) != 1 || !slices.Equal(eps[0].Addresses, []netip.Addr{netip.MustParseAddr("10.0.0.1")}) {
		t.Fatalf("web's endpoints after the first batch: %+v", eps)
	}
	rule := eps[0].Rules[eps[0].Order[0]]
	if rule.Action != policyrules.ActionDrop || !slices.Equal(rule.Peers, []netip.Prefix{netip.MustParsePrefix("10.0.0.2/32")}) {
		t.Errorf("web's rule: %+v", rule)
	}
	// The web VM's address changes: its rules do not, but it is published.
	before := hub.Generation()
	f.enqueue(entity("web", "vm-web", "10.0.0.9"), false)
	f.process()
	if eps := hub.Endpoints(scope); hub.Generation() == before || eps[0].Addresses[0] != netip.MustParseAddr("10.0.0.9") {
		t.Errorf("an address change was not published: %+v", eps)
	}
	// A deletion seen late arrives as DeletedFinalStateUnknown.
	f.enqueue(toolscache.DeletedFinalStateUnknown{Key: "ns/web", Obj: entity("web", "vm-web", "10.0.0.9")}, true)
	f.process()
	if eps := hub.Endpoints(scope); len(eps) != 0 {
		t.Errorf("a deleted entity is still published: %+v", eps)
	}
}

func TestConvertPod(t *testing.T) {
	p := policycompiler.Convert(&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Labels: map[string]string{"a": "b"}},
		Spec: corev1.PodSpec{ServiceAccountName: "sa", Containers: []corev1.Container{{Ports: []corev1.ContainerPort{
			{Name: "http", ContainerPort: 8080}, {ContainerPort: 9090}, {Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}}}}},
		Status: corev1.PodStatus{PodIPs: []corev1.PodIP{{IP: "10.1.0.5"}, {IP: "fd00::5"}}},
	}).(*policycompiler.Pod)
	if p.ServiceAccount != "sa" || len(p.IPs) != 2 || len(p.Ports) != 2 || p.Ports[0].Protocol != policyrules.ProtocolTCP ||
		p.Ports[1].Protocol != policyrules.ProtocolUDP {
		t.Errorf("converted pod: %+v", p)
	}
}
