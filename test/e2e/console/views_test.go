package console

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// TestViews: every view renders the federation's real objects, and a
// Service exported while the services view is open appears, then its
// imports, without a reload.
func TestViews(t *testing.T) {
	f := federation(t)
	leaders := f.WaitSettled(t, time.Minute)
	url := startConsole(t, clusters.Sandbox.KubeconfigPath())
	b := openBrowser(t)

	t.Run("federation", func(t *testing.T) {
		show(t, b, url, "federation")
		waitPage(t, b, 30*time.Second, "the members and their leaders", has(append(slices.Clone(clusters.Names), "Supervisors", "Recent changes of leader")...))
		if got := text(t, b, `document.querySelector('#federation').innerText`); got != "federation console-e2e" {
			t.Errorf("the header says %q, want the federation's ID", got)
		}
		for m, l := range leaders {
			got := text(t, b, fmt.Sprintf(`document.querySelector('tr[data-member=%s] td[data-leader]').dataset.leader`, js(m)))
			if got != l {
				t.Errorf("%s: the page says it is led by %q, its Lease by %q", m, got, l)
			}
		}
		if n := text(t, b, `String(document.querySelectorAll('.picture g.node').length)`); n != fmt.Sprint(nClusters) {
			t.Errorf("the picture has %s members, want %d", n, nClusters)
		}
		if got := text(t, b, `document.querySelector('.picture svg').getAttribute('aria-label')`); !strings.Contains(got, "3 members") {
			t.Errorf("the picture's label %q does not say what it shows", got)
		}
		screenshot(t, b, "federation")
	})

	t.Run("a Service exported while the page is open", func(t *testing.T) {
		ns := clusters.Namespace(t, "member-1")
		for _, m := range clusters.Names[1:] {
			sameNamespace(t, m, ns)
		}
		r := show(t, b, url, "services")
		framework.ExportService(t, clusters.Client(t, "member-1"), ns, "web", corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{IP: "203.0.113.71"})
		framework.ExportService(t, clusters.Client(t, "member-2"), ns, "web", corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{IP: "203.0.113.72"})
		key := ns + "/web"
		waitPage(t, b, 60*time.Second, "the exported Service", fmt.Sprintf(`document.querySelector('tr[data-service=%s]')`, js(key)))
		// Imported in every member, still without a reload.
		waitPage(t, b, 90*time.Second, "its imports in every member", fmt.Sprintf(
			`document.querySelectorAll('tr[data-service=%s] td:nth-child(5) .badge.ok').length === %d`, js(key), nClusters))
		if after := text(t, b, `window.consoleRendered.version`); after == r.Version {
			t.Errorf("the view was not updated (version %s)", after)
		}
		if loads := text(t, b, `String(performance.getEntriesByType('navigation').length)`); loads != "1" {
			t.Errorf("the page was loaded %s times, want once", loads)
		}
		text(t, b, fmt.Sprintf(`(document.querySelector('tr[data-service=%s] details').open = true, "")`, js(key)))
		waitPage(t, b, 10*time.Second, "its names and kubectl commands", has("web."+ns+".svc.clusterset.local",
			"kubectl --context member-1 get serviceexports.multicluster.x-k8s.io -n "+ns+" web -o yaml"))
		screenshot(t, b, "services")
	})

	t.Run("a refused policy shows why", func(t *testing.T) {
		ns := clusters.Namespace(t, "member-2")
		fnp := &policyv1alpha1.FederatedNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "remote-pods"},
			Spec: antreav1beta1.NetworkPolicySpec{Priority: 5,
				AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}},
				Ingress: []antreav1beta1.Rule{{Action: ptr.To(antreav1beta1.RuleActionAllow),
					From: []antreav1beta1.NetworkPolicyPeer{{Scope: antreav1beta1.ScopeClusterSet, PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}}}
		cl := clusters.Client(t, "member-2")
		if err := cl.Create(t.Context(), fnp); err != nil {
			t.Fatal(err)
		}
		show(t, b, url, "policies")
		key := "member-2/FederatedNetworkPolicy/" + ns + "/remote-pods"
		waitPage(t, b, 60*time.Second, "the refused policy", fmt.Sprintf(`document.querySelector('tr[data-policy=%s][data-state=Refused]')`, js(key)))
		text(t, b, fmt.Sprintf(`(document.querySelector('tr[data-policy=%s] details').open = true, "")`, js(key)))
		waitPage(t, b, 10*time.Second, "the reason", has("Refused peers", "RemotePodsRefused"))
		// The state filter keeps it and only refused policies.
		text(t, b, `(() => { const s = document.querySelector('#f-state'); s.value = 'Refused'; s.dispatchEvent(new Event('input', {bubbles: true})); return ""; })()`)
		waitPage(t, b, 10*time.Second, "the filter", `[...document.querySelectorAll('tr[data-policy]')].every((r) => r.dataset.state === 'Refused')`)
		screenshot(t, b, "policies")
	})

	t.Run("clouds", func(t *testing.T) {
		// What a cloud controller writes of an account and an agented VM.
		ns := clusters.Namespace(t, "member-1")
		cl := clusters.Client(t, "member-1")
		acct := &cloudv1alpha1.CloudProviderAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "aws"},
			Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS,
				AWS: &cloudv1alpha1.AWSAccountConfig{Regions: []string{"us-east-1"},
					Credentials: cloudv1alpha1.AWSCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: "aws-creds"}}}}}
		if err := cl.Create(t.Context(), acct); err != nil {
			t.Fatal(err)
		}
		vm := &cloudv1alpha1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "i-0abc"},
			Spec: cloudv1alpha1.VirtualMachineSpec{Provider: cloudv1alpha1.ProviderAWS, AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "aws"},
				CloudID: "i-0abc", CloudName: "build-9", Region: "us-east-1", VPCID: "vpc-9", State: cloudv1alpha1.VMStateRunning,
				EnforcementMode: cloudv1alpha1.EnforcementAgented}}
		if err := cl.Create(t.Context(), vm); err != nil {
			t.Fatal(err)
		}
		show(t, b, url, "clouds")
		waitPage(t, b, 30*time.Second, "the account and the VM", has(ns+"/aws", "build-9", "vpc-9", "Agented", "agent not connected"))
		screenshot(t, b, "clouds")
	})

	t.Run("trace", func(t *testing.T) {
		ns1, ns2 := clusters.Namespace(t, "member-1"), clusters.Namespace(t, "member-2")
		for _, e := range []struct{ member, ns, name, vm, ip string }{{"member-1", ns1, "nic-app", "tr-app", "10.1.0.5"}, {"member-2", ns2, "nic-db", "tr-db", "10.2.0.9"}} {
			ent := &antreav1alpha2.ExternalEntity{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: e.name, Labels: map[string]string{
				cloudv1alpha1.LabelEntityKind: cloudv1alpha1.EntityKindVirtualMachine, "tag.cloud.antreaplus.io/Name": e.vm}},
				Spec: antreav1alpha2.ExternalEntitySpec{ExternalNode: e.vm, Endpoints: []antreav1alpha2.Endpoint{{IP: e.ip}}}}
			if err := clusters.Client(t, e.member).Create(t.Context(), ent); err != nil {
				t.Fatal(err)
			}
		}
		show(t, b, url, "trace")
		text(t, b, `(() => { const f = document.querySelector('#trace-form'); f.from.value = 'member-1:vm/tr-app'; f.to.value = 'member-2:vm/tr-db'; f.port.value = '5432'; f.requestSubmit(); return ""; })()`)
		waitPage(t, b, 60*time.Second, "the trace's path", `document.querySelector('[data-verdict]')`)
		waitPage(t, b, 5*time.Second, "its steps", has("the packet", "10.1.0.5", "10.2.0.9", "egress at "+ns1+"/nic-app in member-1", "ingress at "+ns2+"/nic-db in member-2",
			"no rule: default allow"))
		screenshot(t, b, "trace")
	})
}
