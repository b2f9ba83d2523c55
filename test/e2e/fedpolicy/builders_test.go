package fedpolicy

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// The labels that name a VM of the local cloud.
const (
	accountLabel = "cloud.antreaplus.io/account-name"
	nameTag      = "tag.cloud.antreaplus.io/Name"
	awsAccount   = "aws-emulator"
	azureAccount = "azure-emulator"
)

var bg = context.Background()

// create creates objects in a member and deletes them when the test ends.
func create(t testing.TB, cluster string, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := cl(cluster).Create(bg, o); err != nil {
			t.Fatalf("creating %T %s/%s in %s: %v", o, o.GetNamespace(), o.GetName(), cluster, err)
		}
		t.Cleanup(func() { remove(t, cluster, o) })
	}
}

// remove deletes an object and waits until it is gone.
func remove(t testing.TB, cluster string, o client.Object) {
	t.Helper()
	if err := cl(cluster).Delete(bg, o); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting %T %s/%s in %s: %v", o, o.GetNamespace(), o.GetName(), cluster, err)
		return
	}
	framework.Eventually(t, 30*time.Second, func() error {
		err := cl(cluster).Get(bg, client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object))
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return fmt.Errorf("reading %T %s/%s in %s: %w", o, o.GetNamespace(), o.GetName(), cluster, err)
		}
		return fmt.Errorf("%T %s/%s in %s is not gone yet", o, o.GetNamespace(), o.GetName(), cluster)
	})
}

type policyMod func(*antreav1beta1.NetworkPolicySpec)

// federatedPolicy is a FederatedNetworkPolicy of priority 5 in ns.
func federatedPolicy(namespace, name string, mods ...policyMod) *policyv1alpha1.FederatedNetworkPolicy {
	p := &policyv1alpha1.FederatedNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 5}}
	for _, m := range mods {
		m(&p.Spec)
	}
	return p
}

// antreaPolicy is the same as an ordinary Antrea NetworkPolicy.
func antreaPolicy(namespace, name string, mods ...policyMod) *antreav1beta1.NetworkPolicy {
	p := &antreav1beta1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 5}}
	for _, m := range mods {
		m(&p.Spec)
	}
	return p
}

// appliedToVM applies the policy to the VM of a cloud account named name.
func appliedToVM(account, name string) policyMod {
	return func(s *antreav1beta1.NetworkPolicySpec) {
		s.AppliedTo = append(s.AppliedTo, antreav1beta1.AppliedTo{ExternalEntitySelector: vmSelector(account, name)})
	}
}

// appliedToEveryEntity applies the policy to every ExternalEntity of its Namespace.
func appliedToEveryEntity() policyMod {
	return func(s *antreav1beta1.NetworkPolicySpec) {
		s.AppliedTo = append(s.AppliedTo, antreav1beta1.AppliedTo{ExternalEntitySelector: &metav1.LabelSelector{}})
	}
}

func vmSelector(account, name string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{accountLabel: account, nameTag: name}}
}

// allowIn allows TCP port (every port when 0) from peers.
func allowIn(port int32, peers ...antreav1beta1.NetworkPolicyPeer) policyMod {
	return func(s *antreav1beta1.NetworkPolicySpec) {
		s.Ingress = append(s.Ingress, antreav1beta1.Rule{Action: ptr.To(antreav1beta1.RuleActionAllow), From: peers, Ports: tcp(port)})
	}
}

// dropIn drops everything from cidr.
func dropIn(cidr string) policyMod {
	return func(s *antreav1beta1.NetworkPolicySpec) {
		s.Ingress = append(s.Ingress, antreav1beta1.Rule{Action: ptr.To(antreav1beta1.RuleActionDrop), From: []antreav1beta1.NetworkPolicyPeer{block(cidr)}})
	}
}

// allowToServices allows egress to Services.
func allowToServices(services ...antreav1beta1.PeerService) policyMod {
	return func(s *antreav1beta1.NetworkPolicySpec) {
		s.Egress = append(s.Egress, antreav1beta1.Rule{Action: ptr.To(antreav1beta1.RuleActionAllow), ToServices: services})
	}
}

// dropOut drops everything to cidr.
func dropOut(cidr string) policyMod {
	return func(s *antreav1beta1.NetworkPolicySpec) {
		s.Egress = append(s.Egress, antreav1beta1.Rule{Action: ptr.To(antreav1beta1.RuleActionDrop), To: []antreav1beta1.NetworkPolicyPeer{block(cidr)}})
	}
}

func tcp(port int32) []antreav1beta1.NetworkPolicyPort {
	if port == 0 {
		return nil
	}
	return []antreav1beta1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(port))}}
}

func block(cidr string) antreav1beta1.NetworkPolicyPeer {
	return antreav1beta1.NetworkPolicyPeer{IPBlock: &antreav1beta1.IPBlock{CIDR: cidr}}
}

// remoteVM is a ClusterSet peer selecting the VM named name that member
// source exports.
func remoteVM(source, name string) antreav1beta1.NetworkPolicyPeer {
	return antreav1beta1.NetworkPolicyPeer{Scope: antreav1beta1.ScopeClusterSet, ExternalEntitySelector: &metav1.LabelSelector{
		MatchLabels: map[string]string{federationv1alpha1.LabelSourceCluster: source, nameTag: name}}}
}

// remotePods is a ClusterSet peer selecting Pods: refused.
func remotePods(app string) antreav1beta1.NetworkPolicyPeer {
	return antreav1beta1.NetworkPolicyPeer{Scope: antreav1beta1.ScopeClusterSet, PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}
}

// federatedService names the federated Service name of cloud-demo.
func federatedService(name string) antreav1beta1.PeerService {
	return antreav1beta1.PeerService{Name: name, Namespace: ns, Scope: antreav1beta1.ScopeClusterSet}
}

// vmService is a selector-less Service of cloud-demo whose EndpointSlice,
// written by its owner, is a VM's address on port 8080: a Service in
// front of a VM, reachable from every member over the flat network.
func vmService(name, ip string) (*corev1.Service, *discoveryv1.EndpointSlice) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Name: "echo", Protocol: corev1.ProtocolTCP, Port: 8080, TargetPort: intstr.FromInt32(8080)}}}}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-vm", Labels: map[string]string{
			discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: "fedpolicy-e2e"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("echo"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(int32(8080))}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
	}
	return svc, slice
}

// entityExport exports the dev VMs of cloud-demo (kind VirtualMachine, tag env=dev).
func entityExport() *federationv1alpha1.EntityExport {
	return &federationv1alpha1.EntityExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dev-vms"},
		Spec: federationv1alpha1.EntityExportSpec{ExternalEntitySelector: metav1.LabelSelector{MatchLabels: map[string]string{
			"cloud.antreaplus.io/kind": "VirtualMachine", "tag.cloud.antreaplus.io/env": "dev"}}}}
}

// edgeWebPeer is a ClusterSet peer selecting the edge web VMs.
func edgeWebPeer() antreav1beta1.NetworkPolicyPeer {
	return antreav1beta1.NetworkPolicyPeer{Scope: antreav1beta1.ScopeClusterSet, ExternalEntitySelector: &metav1.LabelSelector{
		MatchLabels: map[string]string{"tag.cloud.antreaplus.io/role": "edge-web"}}}
}

// allowOutRule allows egress to peers on TCP 8080.
func allowOutRule(peers ...antreav1beta1.NetworkPolicyPeer) antreav1beta1.Rule {
	return antreav1beta1.Rule{Action: ptr.To(antreav1beta1.RuleActionAllow), To: peers, Ports: tcp(8080)}
}
