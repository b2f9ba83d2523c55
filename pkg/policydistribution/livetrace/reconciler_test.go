package livetrace_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/livetrace"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/infrastructure/distributiontest"
)

// The reconciler runs here in-process against one real API server, with
// the hub of a real distribution server (no agent: live probes are the
// e2e tests', test/e2e/fedpolicy).

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.Main(m, 1, &clusters)
}

const member = "member-1"

// TestTracesDecideFromTheServedRules: a Trace is decided by the rules the
// hub serves the point; one that names another Namespace's workload
// fails and says why; an ended Trace is deleted after its TTL.
func TestTracesDecideFromTheServedRules(t *testing.T) {
	c := clusters.Client(t, member)
	for _, ns := range []string{"shop", "other"} {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	for _, e := range []struct{ ns, name, ip string }{{"shop", "nic-db", "10.0.1.10"}, {"other", "nic-secret", "10.0.2.20"}} {
		ee := &antreav1alpha2.ExternalEntity{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: e.name},
			Spec: antreav1alpha2.ExternalEntitySpec{ExternalNode: "vm-" + e.name, Endpoints: []antreav1alpha2.Endpoint{{IP: e.ip}}}}
		if err := c.Create(t.Context(), ee); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	// The served rule is of a policy derived from a federated one, not
	// realised yet (no status).
	guard := &antreav1beta1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "fnp-guard",
		Labels: map[string]string{policyv1alpha1.LabelFederatedPolicy: "guard"}},
		Spec: antreav1beta1.NetworkPolicySpec{Priority: 5,
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: &metav1.LabelSelector{}}},
			Ingress:   []antreav1beta1.Rule{{Action: ptr.To(antreav1beta1.RuleActionDrop)}}}}
	if err := c.Create(t.Context(), guard); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	update := distributiontest.DropPorts("shop/nic-db", "vm-nic-db", "10.0.1.10", 5432)
	served := update.Rules.CompiledRules()
	served[0].Policy = policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: "shop", Name: "fnp-guard"}
	ep := wire.NewEndpoint(policyrules.EndpointRules{Endpoint: "shop/nic-db", ExternalNode: "vm-nic-db", Hash: "guard", Rules: served},
		[]netip.Addr{netip.MustParseAddr("10.0.1.10")})
	update.Rules = &ep
	hub := policydistribution.NewHub()
	hub.Publish([]policydistribution.Update{update})
	startReconciler(t, &livetrace.Reconciler{Rules: hub,
		Prober: policydistribution.NewServer(hub, policydistribution.ServerOptions{}), AgentlessNode: "agentless"})

	ttl := int32(3)
	create := func(name, entity string) *policyv1alpha1.Trace {
		t.Helper()
		tr := &policyv1alpha1.Trace{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
			Spec: policyv1alpha1.TraceSpec{Protocol: "TCP", Port: 5432, TTLSecondsAfterFinished: &ttl,
				Source:      policyv1alpha1.TraceEnd{Address: "10.9.9.9"},
				Destination: policyv1alpha1.TraceEnd{ExternalEntity: entity}}}
		if err := c.Create(t.Context(), tr); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	ended := func(tr *policyv1alpha1.Trace) {
		t.Helper()
		framework.Eventually(t, 30*time.Second, func() error {
			if err := c.Get(context.WithoutCancel(t.Context()), client.ObjectKeyFromObject(tr), tr); err != nil {
				return err
			}
			if tr.Status.Phase != policyv1alpha1.TraceCompleted && tr.Status.Phase != policyv1alpha1.TraceFailed {
				return fmt.Errorf("phase %q", tr.Status.Phase)
			}
			return nil
		})
	}

	// Before the hub's first complete compile nothing is decided: the
	// point's missing rules would read as "no policy applies".
	db := create("to-db", "nic-db")
	time.Sleep(1500 * time.Millisecond)
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(db), db); err != nil || db.Status.Phase != "" {
		t.Fatalf("before the rules are complete: status %+v (%v), want none yet", db.Status, err)
	}
	hub.SetReady()
	ended(db)
	if db.Status.Phase != policyv1alpha1.TraceCompleted || db.Status.Verdict != "Dropped" || len(db.Status.Points) != 1 {
		t.Fatalf("status %+v, want Completed, Dropped at one point", db.Status)
	}
	p := db.Status.Points[0]
	if p.ExternalEntity != "shop/nic-db" || p.Direction != "Ingress" || p.Enforcer != "vm-nic-db" ||
		p.Computed.Verdict != "Dropped" || !strings.Contains(p.Computed.Rule, "Ingress rule 5432") || p.Observed != nil {
		t.Errorf("point %+v, want the ingress of shop/nic-db dropped by the served rule, not observed", p)
	}
	if r := p.Computed.DecidedBy; r == nil || r.Policy != "AntreaNetworkPolicy:shop/fnp-guard" || r.Tier != "application" || r.Index != 5432 ||
		r.Action != "Drop" || r.FederatedPolicy != "shop/guard" {
		t.Errorf("decided by %+v, want rule 5432 of AntreaNetworkPolicy:shop/fnp-guard, derived from shop/guard", r)
	}
	if !strings.Contains(p.Pending, "AntreaNetworkPolicy:shop/fnp-guard is not realised: no status yet") {
		t.Errorf("pending %q, want the policy not realised", p.Pending)
	}

	// Another Namespace's workload cannot be named: a Trace traces its own.
	foreign := create("to-secret", "nic-secret")
	ended(foreign)
	if foreign.Status.Phase != policyv1alpha1.TraceFailed || !strings.Contains(foreign.Status.Message, `no ExternalEntity "nic-secret" in Namespace shop`) ||
		len(foreign.Status.Points) != 0 {
		t.Errorf("status %+v, want Failed: no ExternalEntity in Namespace shop", foreign.Status)
	}

	// Both are deleted once their TTL has passed.
	framework.Eventually(t, 30*time.Second, func() error {
		for _, tr := range []*policyv1alpha1.Trace{db, foreign} {
			if err := c.Get(context.WithoutCancel(t.Context()), client.ObjectKeyFromObject(tr), &policyv1alpha1.Trace{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("trace %s still there (%w)", tr.Name, err)
			}
		}
		return nil
	})
}

// startReconciler runs r in a manager of the member until the test ends.
func startReconciler(t *testing.T, r *livetrace.Reconciler) {
	t.Helper()
	sch, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(clusters.Config(t, member), ctrl.Options{Scheme: sch,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	r.Client, r.Log = mgr.GetClient(), testr.New(t)
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// TestAgentlessFindingsOnThePoint: a point enforced by security groups
// carries what the agentless consumer reported (over the distribution
// protocol) of the point's policies, and not another policy's.
func TestAgentlessFindingsOnThePoint(t *testing.T) {
	c := clusters.Client(t, member)
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cloud"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	ee := &antreav1alpha2.ExternalEntity{ObjectMeta: metav1.ObjectMeta{Namespace: "cloud", Name: "nic-web"},
		Spec: antreav1alpha2.ExternalEntitySpec{ExternalNode: distributiontest.AgentlessNode, Endpoints: []antreav1alpha2.Endpoint{{IP: "10.0.3.30"}}}}
	if err := c.Create(t.Context(), ee); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	srv := distributiontest.New(t)
	update := distributiontest.DropPorts("cloud/nic-web", distributiontest.AgentlessNode, "10.0.3.30", 443)
	rules := update.Rules.CompiledRules()
	rules[0].Action = policyrules.ActionReject
	rules[0].Policy = policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: "cloud", Name: "web"}
	ep := wire.NewEndpoint(policyrules.EndpointRules{Endpoint: "cloud/nic-web", ExternalNode: distributiontest.AgentlessNode, Hash: "web", Rules: rules},
		[]netip.Addr{netip.MustParseAddr("10.0.3.30")})
	update.Rules = &ep
	srv.Publish(update)
	cl, err := consumer.New(srv.ClientOptions(srv.AgentlessToken()))
	if err != nil {
		t.Fatal(err)
	}
	web := wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "cloud", Name: "web"}
	other := wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "cloud", Name: "other"}
	if err := cl.ReportAgentless(t.Context(), wire.AgentlessReport{Reporter: "cloud-controller-0", Endpoints: []wire.EndpointRealization{{
		Name: "cloud/nic-web", Findings: []wire.Finding{
			{Policy: web, Rule: "Ingress rule 443", Severity: wire.SeverityApproximated, Reason: "RejectEnforcedAsDrop",
				Message: "security groups drop denied traffic silently"},
			{Policy: other, Severity: wire.SeverityUnrealized, Reason: "DenyNotExpressible", Message: "another policy's"},
		}}}}); err != nil {
		t.Fatal(err)
	}
	startReconciler(t, &livetrace.Reconciler{Rules: srv.Hub, Prober: srv.Server, Cloud: srv.Server, AgentlessNode: distributiontest.AgentlessNode})

	tr := &policyv1alpha1.Trace{ObjectMeta: metav1.ObjectMeta{Namespace: "cloud", Name: "to-web"},
		Spec: policyv1alpha1.TraceSpec{Protocol: "TCP", Port: 443,
			Source:      policyv1alpha1.TraceEnd{Address: "10.9.9.9"},
			Destination: policyv1alpha1.TraceEnd{ExternalEntity: "nic-web"}}}
	if err := c.Create(t.Context(), tr); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func() error {
		if err := c.Get(context.WithoutCancel(t.Context()), client.ObjectKeyFromObject(tr), tr); err != nil {
			return err
		}
		if tr.Status.Phase != policyv1alpha1.TraceCompleted {
			return fmt.Errorf("phase %q (%s)", tr.Status.Phase, tr.Status.Message)
		}
		return nil
	})
	if len(tr.Status.Points) != 1 {
		t.Fatalf("points %+v, want the ingress of cloud/nic-web", tr.Status.Points)
	}
	p := tr.Status.Points[0]
	want := []policyv1alpha1.TraceFinding{{Severity: "Approximated", Reason: "RejectEnforcedAsDrop", Policy: "AntreaNetworkPolicy:cloud/web",
		Rule: "Ingress rule 443", Message: "security groups drop denied traffic silently"}}
	if p.Computed.Verdict != "Rejected" || fmt.Sprint(p.Findings) != fmt.Sprint(want) {
		t.Errorf("point %+v, want Rejected with the findings %+v", p, want)
	}
}
