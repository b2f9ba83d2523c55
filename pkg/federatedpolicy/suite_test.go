package federatedpolicy

import (
	"context"
	"fmt"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/test/framework"
)

// The controller runs here in-process against one real cluster, which the
// tests fill as a leader would: a ClusterMembership (this member is
// member-2, region eu), RemoteEntities, ServiceImports and imported
// EndpointSlices.

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.Main(m, 1, &clusters)
}

const cluster = "member-1"

var (
	startOnce sync.Once
	startErr  error
)

// start runs the controller once for the package, and returns a client of
// the cluster.
func start(t *testing.T) client.Client {
	t.Helper()
	c := clusters.Client(t, cluster)
	startOnce.Do(func() { startErr = run(clusters.Config(t, cluster), c) })
	if startErr != nil {
		t.Fatal(startErr)
	}
	return c
}

func run(cfg *rest.Config, c client.Client) error {
	ctx := context.Background()
	m := &federationv1alpha1.ClusterMembership{
		ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName, Labels: map[string]string{"region": "eu"}},
		Spec:       federationv1alpha1.ClusterMembershipSpec{ClusterID: "member-2", FederationID: "acme"},
	}
	if err := c.Create(ctx, m); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the ClusterMembership: %w", err)
	}
	for _, n := range suiteNetworks() {
		if err := c.Create(ctx, n); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Network %s: %w", n.Name, err)
		}
	}
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		return err
	}
	if err := RegisterMetrics(metrics.Registry, mgr.GetCache()); err != nil {
		return err
	}
	if err := Setup(ctx, mgr); err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			log.Log.Error(err, "The manager stopped")
		}
	}()
	return nil
}

// fnp reads a federated policy.
func fnp(t *testing.T, c client.Client, ns, name string) *policyv1alpha1.FederatedNetworkPolicy {
	t.Helper()
	p := &policyv1alpha1.FederatedNetworkPolicy{}
	if err := c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: name}, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// hasCondition checks a condition of a policy's status at its generation.
func hasCondition(p *policyv1alpha1.FederatedNetworkPolicy, typ string, status metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(p.Status.Conditions, typ)
	switch {
	case p.Status.ObservedGeneration != p.Generation:
		return fmt.Errorf("status of generation %d; policy at %d", p.Status.ObservedGeneration, p.Generation)
	case c == nil:
		return fmt.Errorf("no %s condition in %+v", typ, p.Status.Conditions)
	case c.Status != status || c.Reason != reason:
		return fmt.Errorf("%s = %s/%s (%s); want %s/%s", typ, c.Status, c.Reason, c.Message, status, reason)
	}
	return nil
}

// groupCIDRs returns the ipBlocks of a Group.
func groupCIDRs(c client.Client, ns, name string) ([]string, error) {
	g := &antreav1beta1.Group{}
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, g); err != nil {
		return nil, err
	}
	var out []string
	for _, b := range g.Spec.IPBlocks {
		out = append(out, b.CIDR)
	}
	return out, nil
}
