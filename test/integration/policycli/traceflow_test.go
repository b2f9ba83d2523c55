package policycli

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	tfv1beta1 "antreaplus.io/antreaplus/api/antrea/traceflow/v1beta1"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/infrastructure/antreaemu"
)

// TestTracePodLegsThroughTraceflow: a Pod's leg of a trace is decided by
// Antrea's Traceflow in the Pod's member (here a stand-in for Antrea's
// controller answers it on a real API server, antreaemu): what the command
// asks (the Pod, the address the packet carries, a TCP SYN to the port),
// the rule it quotes with the federated policy it is derived from, the
// Traceflow deleted; a member without Antrea, an Antrea that does not
// answer, and a VM-to-Pod flow that only a live Traceflow can trace, each
// said so.
func TestTracePodLegsThroughTraceflow(t *testing.T) {
	ns1, ns2 := clusters.Namespace(t, "member-1"), clusters.Namespace(t, "member-2")
	m1, m2 := clusters.Client(t, "member-1"), clusters.Client(t, "member-2")
	mustCreate(t, m1, entity(ns1, "nic-app", "tf-app", "10.1.0.5"))
	mustCreate(t, m2, entity(ns2, "nic-db", "tf-db", "10.2.0.9"))
	for _, p := range []struct {
		member string
		ns, ip string
	}{{"member-1", ns1, "10.1.0.7"}, {"member-2", ns2, "10.2.0.7"}} {
		cl := clusters.Client(t, p.member)
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: "web-0"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web"}}}}
		mustCreate(t, cl, pod)
		framework.UpdateStatus(t, cl, pod, func() { pod.Status.PodIPs = []corev1.PodIP{{IP: p.ip}} })
	}
	// The Antrea policy derived from a federated one, as the member
	// controller writes it: the rule Antrea's datapath names.
	mustCreate(t, m1, &antreav1beta1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns1, Name: "fnp-web-out", Labels: map[string]string{policyv1alpha1.LabelFederatedPolicy: "web-out"}},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 5,
			AppliedTo: []antreav1beta1.AppliedTo{{PodSelector: &metav1.LabelSelector{}}},
			Egress:    []antreav1beta1.Rule{{Name: "egress-0", Action: ptr.To(antreav1beta1.RuleActionDrop)}}},
	})

	antreaemu.InstallCRD(t, m1)
	var silent atomic.Bool
	em := antreaemu.Start(t, m1, func(tf *tfv1beta1.Traceflow) (tfv1beta1.TraceflowStatus, bool) {
		if silent.Load() {
			return tfv1beta1.TraceflowStatus{}, false
		}
		return antreaemu.Succeeded(
			tfv1beta1.Observation{Component: tfv1beta1.ComponentSpoofGuard, Action: tfv1beta1.ActionForwarded},
			antreaemu.NetworkPolicy(tfv1beta1.TableEgressMetric, tfv1beta1.ActionDropped, "AntreaNetworkPolicy:"+ns1+"/fnp-web-out", "egress-0")), true
	})
	trace := func(t *testing.T, args ...string) string {
		t.Helper()
		out, err := antreaplus(t, clusters.Sandbox.KubeconfigPath(), append([]string{"trace", "--timeout", "20s"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	t.Run("a Pod's egress decided by Antrea", func(t *testing.T) {
		out := trace(t, "--from", "member-1:pod/"+ns1+"/web-0", "--to", "member-2:vm/tf-db", "--port", "5432")
		for _, want := range []string{"TCP/5432: DROPPED",
			"Pod " + ns1 + "/web-0 (in member-1): AntreaNetworkPolicy:" + ns1 + "/fnp-web-out, Egress rule (egress-0): Drop, " +
				"derived from FederatedNetworkPolicy " + ns1 + "/web-out (decided by Antrea's Traceflow antreaplus-trace-"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
		seen := em.Seen()
		if len(seen) != 1 {
			t.Fatalf("Antrea was asked %d Traceflows, want 1", len(seen))
		}
		s := seen[0].Spec
		tcp := s.Packet.TransportHeader.TCP
		if s.Source != (tfv1beta1.Source{Namespace: ns1, Pod: "web-0"}) || s.Destination != (tfv1beta1.Destination{IP: "10.2.0.9"}) ||
			s.LiveTraffic || s.Packet.IPHeader == nil || s.Packet.IPHeader.Protocol != tfv1beta1.ProtocolTCP ||
			tcp == nil || tcp.DstPort != 5432 || tcp.Flags == nil || *tcp.Flags != tfv1beta1.TCPFlagSYN {
			t.Errorf("Traceflow asked: %+v; want a TCP SYN injected at %s/web-0 to 10.2.0.9:5432", s, ns1)
		}
		if seen[0].Labels[policyv1alpha1.LabelManagedBy] != policyv1alpha1.ManagedByTrace {
			t.Errorf("Traceflow labels %v; want %s=%s", seen[0].Labels, policyv1alpha1.LabelManagedBy, policyv1alpha1.ManagedByTrace)
		}
		framework.Eventually(t, 30*time.Second, func() error {
			var l tfv1beta1.TraceflowList
			if err := m1.List(t.Context(), &l); err != nil {
				return err
			}
			if len(l.Items) != 0 {
				return fmt.Errorf("%d Traceflows left behind", len(l.Items))
			}
			return nil
		})
	})
	t.Run("a VM to a Pod: live only", func(t *testing.T) {
		out := trace(t, "--from", "member-1:vm/tf-app", "--to", "member-1:pod/"+ns1+"/web-0", "--port", "80")
		if !strings.Contains(out, "TCP/80: UNDECIDED") ||
			!strings.Contains(out, "Antrea's Traceflow injects packets at Pods only: with --live it traces the real packet from 10.1.0.5") {
			t.Errorf("want the Pod's leg undecided, saying a live Traceflow would trace it:\n%s", out)
		}
	})
	t.Run("a member without Antrea", func(t *testing.T) {
		out := trace(t, "--from", "member-2:pod/"+ns2+"/web-0", "--to", "member-1:vm/tf-app", "--port", "5432")
		if !strings.Contains(out, "Antrea's Traceflow is not served in member-2 (no traceflows.crd.antrea.io)") {
			t.Errorf("want the Pod's leg undecided: no Antrea in member-2:\n%s", out)
		}
	})
	t.Run("an Antrea that does not answer", func(t *testing.T) {
		silent.Store(true)
		defer silent.Store(false)
		out := trace(t, "--from", "member-1:pod/"+ns1+"/web-0", "--to", "member-2:vm/tf-db", "--port", "5432")
		if !strings.Contains(out, "TCP/5432: UNDECIDED") || !strings.Contains(out, "Antrea did not answer Traceflow antreaplus-trace-") {
			t.Errorf("want the Pod's leg undecided, Antrea not answering:\n%s", out)
		}
	})
}
