package vmagent

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// Builders of the test's objects: names and functional modifiers instead
// of long literals.

func virtualMachine(namespace, name string) *cloudv1alpha1.VirtualMachine {
	return &cloudv1alpha1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: cloudv1alpha1.VirtualMachineSpec{Provider: cloudv1alpha1.ProviderAWS,
			AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "e2e"}, CloudID: "i-" + name,
			Region: "us-east-1", State: cloudv1alpha1.VMStateRunning, EnforcementMode: cloudv1alpha1.EnforcementAgented},
	}
}

func externalEntity(namespace, vm, ip string, labels map[string]string) *antreav1alpha2.ExternalEntity {
	return &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "nic-" + vm, Labels: labels},
		Spec: antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: ip, Name: "eth0"}},
			ExternalNode: vm},
	}
}

func entities(kv ...string) *metav1.LabelSelector {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		sel.MatchLabels[kv[i]] = kv[i+1]
	}
	return sel
}

func appliedTo(sel *metav1.LabelSelector) []antreav1beta1.AppliedTo {
	return []antreav1beta1.AppliedTo{{ExternalEntitySelector: sel}}
}

type ruleOpt func(*antreav1beta1.Rule)

func rule(action antreav1beta1.RuleAction, opts ...ruleOpt) antreav1beta1.Rule {
	r := antreav1beta1.Rule{Action: &action}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// from and to name the peers: ExternalEntities matching sel, in every
// namespace (a ClusterNetworkPolicy) or the policy's (a NetworkPolicy).
func from(sel *metav1.LabelSelector) ruleOpt {
	return func(r *antreav1beta1.Rule) {
		r.From = append(r.From, antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: sel})
	}
}

func to(sel *metav1.LabelSelector) ruleOpt {
	return func(r *antreav1beta1.Rule) {
		r.To = append(r.To, antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: sel})
	}
}

func port(protocol corev1.Protocol, p int32) ruleOpt {
	return func(r *antreav1beta1.Rule) {
		v := intstr.FromInt32(p)
		r.Ports = append(r.Ports, antreav1beta1.NetworkPolicyPort{Protocol: &protocol, Port: &v})
	}
}

func tcp(p int32) ruleOpt { return port(corev1.ProtocolTCP, p) }
func udp(p int32) ruleOpt { return port(corev1.ProtocolUDP, p) }

func acnp(name, tier string, priority float64, applied *metav1.LabelSelector, ingress, egress []antreav1beta1.Rule) *antreav1beta1.ClusterNetworkPolicy {
	return &antreav1beta1.ClusterNetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: antreav1beta1.ClusterNetworkPolicySpec{Tier: tier, Priority: priority, AppliedTo: appliedTo(applied),
			Ingress: ingress, Egress: egress},
	}
}

func anp(namespace, name, tier string, priority float64, applied *metav1.LabelSelector, ingress, egress []antreav1beta1.Rule) *antreav1beta1.NetworkPolicy {
	return &antreav1beta1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: antreav1beta1.NetworkPolicySpec{Tier: tier, Priority: priority, AppliedTo: appliedTo(applied),
			Ingress: ingress, Egress: egress},
	}
}

func tier(name string, priority int32) *antreav1beta1.Tier {
	return &antreav1beta1.Tier{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: antreav1beta1.TierSpec{Priority: priority}}
}

// create creates objects and deletes them when the test ends (namespaced
// ones also go with their namespace).
func create(t *testing.T, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
		t.Cleanup(func() {
			// (t.Context() is cancelled before cleanups run.)
			if err := c.Delete(context.WithoutCancel(t.Context()), o); err != nil && !apierrors.IsNotFound(err) {
				t.Logf("deleting %T %s: %v", o, o.GetName(), err)
			}
		})
	}
}
