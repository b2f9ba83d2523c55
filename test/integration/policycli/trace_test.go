package policycli

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// entity is a VM's ExternalEntity as the cloud controller writes it.
func entity(ns, name, vm, ip string) *antreav1alpha2.ExternalEntity {
	return &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{
			cloudv1alpha1.LabelEntityKind: cloudv1alpha1.EntityKindVirtualMachine, "tag.cloud.antreaplus.io/Name": vm}},
		Spec: antreav1alpha2.ExternalEntitySpec{ExternalNode: vm, Endpoints: []antreav1alpha2.Endpoint{{IP: ip}}},
	}
}

// TestTrace: antreaplus trace against two real API servers (and a dead
// one): a flow from a VM of member-1 to a VM of member-2 allowed by a rule
// of a policy derived from a federated one, the same flow on another port
// dropped by the deny-all, JSON, and bad input.
func TestTrace(t *testing.T) {
	ns1, ns2 := clusters.Namespace(t, "member-1"), clusters.Namespace(t, "member-2")
	mustCreate(t, clusters.Client(t, "member-1"), entity(ns1, "nic-app", "trace-app", "10.1.0.5"))
	m2 := clusters.Client(t, "member-2")
	mustCreate(t, m2, entity(ns2, "nic-db", "trace-db", "10.2.0.9"))
	tcp := func(port int) []antreav1beta1.NetworkPolicyPort {
		return []antreav1beta1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt(port))}}
	}
	mustCreate(t, m2, &antreav1beta1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns2, Name: "fnp-db-guard", Labels: map[string]string{policyv1alpha1.LabelFederatedPolicy: "db-guard"}},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 5,
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tag.cloud.antreaplus.io/Name": "trace-db"}}}},
			Ingress: []antreav1beta1.Rule{
				{Name: "app", Action: ptr.To(antreav1beta1.RuleActionAllow), Ports: tcp(5432),
					From: []antreav1beta1.NetworkPolicyPeer{{IPBlock: &antreav1beta1.IPBlock{CIDR: "10.1.0.5/32"}}}},
				{Name: "deny-rest", Action: ptr.To(antreav1beta1.RuleActionDrop)},
			}},
	})
	kubeconfig := withDeadContext(t)
	trace := func(t *testing.T, args ...string) (string, error) {
		t.Helper()
		return antreaplus(t, kubeconfig, append([]string{"trace", "--timeout", "20s"}, args...)...)
	}

	// No policy controller runs here: a trace asks the members (a Trace
	// object), gets no answer and computes here; --local goes there at once.
	t.Run("allowed", func(t *testing.T) {
		out, err := trace(t, "--from", "member-1:vm/trace-app", "--to", "member-2:vm/trace-db", "--port", "5432")
		if err != nil {
			t.Fatalf("a dead member must not fail the trace: %v", err)
		}
		for _, want := range []string{"TCP/5432: ALLOWED", "10.1.0.5 -> 10.2.0.9 TCP/5432",
			"egress at " + ns1 + "/nic-app in member-1 (enforced by trace-app): allowed", "no rule: default allow",
			"ingress at " + ns2 + "/nic-db in member-2 (enforced by trace-db): allowed",
			"AntreaNetworkPolicy:" + ns2 + "/fnp-db-guard, Ingress rule 0 (app): Allow, derived from FederatedNetworkPolicy " + ns2 + "/db-guard",
			"is not realised: no status yet"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
	})
	t.Run("dropped, as JSON", func(t *testing.T) {
		out, err := trace(t, "--from", "member-1:vm/trace-app", "--to", "member-2:vm/trace-db", "--port", "22", "-o", "json", "--local")
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Trace struct {
				Verdict string `json:"verdict"`
				Steps   []struct {
					Kind string `json:"kind"`
					Rule *struct {
						Policy string `json:"policy"`
						Name   string `json:"name"`
					} `json:"rule"`
				} `json:"steps"`
			} `json:"trace"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		last := got.Trace.Steps[len(got.Trace.Steps)-1]
		if got.Trace.Verdict != "dropped" || last.Kind != "ingress" || last.Rule == nil || last.Rule.Name != "deny-rest" {
			t.Errorf("trace %+v; want dropped at the ingress by deny-rest", got.Trace)
		}
	})
	t.Run("a database by its cloud name", func(t *testing.T) {
		// The cloud controller imports an RDS database as a
		// CloudNativeService and its ExternalEntity, labelled with the
		// service's object name; the operator knows the cloud's name.
		mustCreate(t, m2, &cloudv1alpha1.CloudNativeService{ObjectMeta: metav1.ObjectMeta{Namespace: ns2, Name: "rds-orders"},
			Spec: cloudv1alpha1.CloudNativeServiceSpec{Provider: cloudv1alpha1.ProviderAWS, AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "aws"},
				Kind: cloudv1alpha1.ServiceKindAWSRDS, CloudID: "arn:aws:rds:us-east-1:111122223333:db:orders-db", CloudName: "orders-db", Region: "us-east-1"}})
		mustCreate(t, m2, &antreav1alpha2.ExternalEntity{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns2, Name: "svc-rds-orders", Labels: map[string]string{
				cloudv1alpha1.LabelEntityKind: cloudv1alpha1.EntityKindCloudNativeService, cloudv1alpha1.LabelEntityName: "rds-orders"}},
			Spec: antreav1alpha2.ExternalEntitySpec{ExternalNode: "agentless", Endpoints: []antreav1alpha2.Endpoint{{IP: "10.2.0.20"}}},
		})
		out, err := trace(t, "--from", "member-1:vm/trace-app", "--to", "member-2:service/orders-db", "--port", "5432", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Trace struct {
				Destination string `json:"destination"`
				Steps       []struct {
					Kind  string `json:"kind"`
					Point string `json:"point"`
				} `json:"steps"`
			} `json:"trace"`
			Took struct {
				Read string `json:"read"`
				By   string `json:"by"`
			} `json:"took"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		last := got.Trace.Steps[len(got.Trace.Steps)-1]
		if got.Trace.Destination != "10.2.0.20" || last.Kind != "ingress" || last.Point != ns2+"/svc-rds-orders" {
			t.Errorf("trace %+v; want to 10.2.0.20, the ingress at %s/svc-rds-orders", got.Trace, ns2)
		}
		// No policy controller answers here: decided by the command.
		if got.Took.By != "here" || got.Took.Read == "" {
			t.Errorf("took %+v; want the read's time and decided here", got.Took)
		}
	})
	t.Run("a destination without an address", func(t *testing.T) {
		mustCreate(t, m2, &antreav1alpha2.ExternalEntity{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns2, Name: "nic-none", Labels: map[string]string{
				cloudv1alpha1.LabelEntityKind: cloudv1alpha1.EntityKindVirtualMachine, "tag.cloud.antreaplus.io/Name": "trace-none"}},
			Spec: antreav1alpha2.ExternalEntitySpec{ExternalNode: "trace-none"},
		})
		// Nothing to ask the members: the trace says why, and succeeds.
		out, err := trace(t, "--from", "member-1:vm/trace-app", "--to", "member-2:vm/trace-none", "--port", "5432")
		if err != nil || !strings.Contains(out, "TCP/5432: UNREACHABLE") || !strings.Contains(out, "it has no address") {
			t.Errorf("trace: %v\n%s\nwant the trace unreachable: the destination has no address", err, out)
		}
		// Nothing can be sent live.
		if _, err := trace(t, "--from", "member-1:vm/trace-app", "--to", "member-2:vm/trace-none", "--port", "5432", "--live"); err == nil ||
			!strings.Contains(err.Error(), "--live: nothing can be sent: the flow has no addresses to send between; without --live the trace says why") {
			t.Errorf("trace --live: error %v; want nothing can be sent", err)
		}
	})
	t.Run("a Pod's leg is Antrea's", func(t *testing.T) {
		m1 := clusters.Client(t, "member-1")
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns1, Name: "web-0"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web"}}}}
		mustCreate(t, m1, pod)
		framework.UpdateStatus(t, m1, pod, func() { pod.Status.PodIPs = []corev1.PodIP{{IP: "10.1.0.7"}} })
		out, err := trace(t, "--from", "member-1:pod/"+ns1+"/web-0", "--to", "member-2:vm/trace-db", "--port", "5432", "--local")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"TCP/5432: DROPPED", "Pod " + ns1 + "/web-0 (in member-1): not computed here: Antrea enforces the policies of Pods in member-1",
			"Ingress rule 1 (deny-rest): Drop"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
	})
	t.Run("a tenant admin tracing another tenant's VM is refused", func(t *testing.T) {
		// The admin of member-1's Namespace ns1 may read every
		// ExternalEntity (a viewer's right) but create Traces in ns1 only:
		// tracing member-2's VM asks member-2 for a Trace in ns2.
		user := "tenant-admin-" + ns1
		for _, m := range []string{"member-1", "member-2"} {
			cl := clusters.Client(t, m)
			mustCreate(t, cl, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user},
				Rules: []rbacv1.PolicyRule{{APIGroups: []string{"crd.antrea.io"}, Resources: []string{"externalentities"}, Verbs: []string{"get", "list"}},
					{APIGroups: []string{"multicluster.x-k8s.io", "discovery.k8s.io", "cloud.antreaplus.io", "federation.antreaplus.io"},
						Resources: []string{"*"}, Verbs: []string{"get", "list"}}}})
			mustCreate(t, cl, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user}}})
		}
		m1 := clusters.Client(t, "member-1")
		mustCreate(t, m1, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns1, Name: "tracer"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{policyv1alpha1.GroupVersion.Group}, Resources: []string{"traces"}, Verbs: []string{"create", "get", "delete"}}}})
		mustCreate(t, m1, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns1, Name: "tracer"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "tracer"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user}}})
		_, err := antreaplus(t, asUser(t, user), "trace", "--timeout", "20s", "--from", "member-1:vm/trace-app", "--to", "member-2:vm/trace-db", "--port", "5432")
		if err == nil || !strings.Contains(err.Error(), "member-2: you may not create Traces in Namespace "+ns2) ||
			!strings.Contains(err.Error(), "a tenant admin traces its own Namespace's workloads only") {
			t.Errorf("error %v; want the Trace in member-2's %s refused", err, ns2)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		for _, tc := range []struct{ from, to, want string }{
			{"member-1:vm/nope", "member-2:vm/trace-db", "no ExternalEntity of vm/nope in member member-1"},
			{"member-1:vm/trace-app", "dead:vm/trace-db", "member dead could not be read: reading dead"},
			{"vm:trace-app", "member-2:vm/trace-db", "want [MEMBER:]vm/NAME"},
			{"member-1:vm/trace-app", "db.shop.svc.clusterset.local", "NXDOMAIN in member-1"},
		} {
			_, err := trace(t, "--from", tc.from, "--to", tc.to, "--port", "5432")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("trace %s -> %s: error %v; want %q", tc.from, tc.to, err, tc.want)
			}
		}
	})
}
