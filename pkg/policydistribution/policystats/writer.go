package policystats

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// ManagedBy is the app.kubernetes.io/managed-by label of the objects the
// Writer writes: it deletes those of policies that are gone.
const ManagedBy = "antreaplus-policy-controller"

// Agents are what VM agents reported. *policydistribution.Server is one.
type Agents interface {
	Agents() []policydistribution.AgentStatus
}

// Writer writes the PolicyStats of every policy agents count rules of. It
// is a manager.Runnable that needs leader election (the server's reports
// are the leader's).
type Writer struct {
	Client client.Client
	Agents Agents
	// Namespace holds the stats of cluster-wide policies: the
	// controller's own.
	Namespace string
	// Interval is how often counts are written (default 30 s): counters
	// change with every connection, so they are written at most this
	// often.
	Interval time.Duration
	Metrics  *Metrics
	Log      logr.Logger
}

// Start writes stats until ctx ends.
func (w *Writer) Start(ctx context.Context) error {
	interval := w.Interval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
		if err := w.WriteAll(ctx); err != nil {
			w.Log.Error(err, "Writing policy stats; retrying at the next interval")
		}
	}
}

// The policy controller writes the traffic agents count per rule (chart:
// files/rbac/policy-controller.yaml).
// +kubebuilder:rbac:groups=policy.antreaplus.io,resources=policystats,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=virtualmachines,verbs=get;list;watch
// +kubebuilder:rbac:groups=crd.antrea.io,resources=networkpolicies;clusternetworkpolicies,verbs=get;list;watch

// WriteAll writes the stats of every policy whose counts changed, and
// deletes those of policies that are gone.
func (w *Writer) WriteAll(ctx context.Context) error {
	start := time.Now()
	var points []Point
	for _, a := range w.Agents.Agents() {
		if a.Report == nil || len(a.Report.RuleCounts) == 0 {
			continue
		}
		points = append(points, Point{Name: PointName(a.VirtualMachine), Counts: a.Report.RuleCounts, At: a.ReportedAt})
	}
	byPolicy := ByPolicy(points)
	var stored policyv1alpha1.PolicyStatsList
	if err := w.Client.List(ctx, &stored, client.MatchingLabels{"app.kubernetes.io/managed-by": ManagedBy}); err != nil {
		return fmt.Errorf("listing PolicyStats: %w", err)
	}
	prev := map[wire.PolicyRef]*policyv1alpha1.PolicyStats{}
	for i := range stored.Items {
		s := &stored.Items[i]
		ref := wire.PolicyRef{Kind: s.Policy.Kind, Namespace: s.Policy.Namespace, Name: s.Policy.Name}
		prev[ref] = s
		if _, ok := byPolicy[ref]; !ok {
			byPolicy[ref] = nil
		}
	}
	var errs []error
	for ref, reported := range byPolicy {
		if err := w.write(ctx, ref, reported, prev[ref]); err != nil {
			errs = append(errs, err)
			w.Metrics.writes.WithLabelValues("error").Inc()
		}
	}
	w.Metrics.policies.Set(float64(len(byPolicy)))
	w.Metrics.seconds.Observe(time.Since(start).Seconds())
	return errors.Join(errs...)
}

// write computes and writes one policy's stats.
func (w *Writer) write(ctx context.Context, ref wire.PolicyRef, reported []Point, prev *policyv1alpha1.PolicyStats) error {
	policy, federated, err := w.policy(ctx, ref)
	if err != nil {
		return err
	}
	if policy == nil {
		if prev == nil {
			return nil
		}
		w.Metrics.writes.WithLabelValues("deleted").Inc()
		if err := w.Client.Delete(ctx, prev); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the stats of %s %s, which is gone: %w", ref.Kind, name(ref), err)
		}
		return nil
	}
	counted, changed := Compute(Input{Reported: reported, Prev: prev, Exists: w.pointExists(ctx)}, metav1.Now())
	obj := prev
	if obj == nil {
		obj = &policyv1alpha1.PolicyStats{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespaceOf(ref), Name: ObjectName(ref)}}
	} else {
		obj = obj.DeepCopy()
	}
	before := obj.DeepCopy()
	obj.Labels = map[string]string{"app.kubernetes.io/managed-by": ManagedBy}
	if err := setOwner(obj, policy, w.Client); err != nil {
		return err
	}
	obj.Policy = policyv1alpha1.PolicyStatsTarget{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
	obj.FederatedPolicy = federated
	obj.Traffic, obj.Rules, obj.EnforcementPoints, obj.UpdateTime = counted.Traffic, counted.Rules, counted.EnforcementPoints, counted.UpdateTime
	switch {
	case prev == nil:
		err = w.Client.Create(ctx, obj)
		if apierrors.IsAlreadyExists(err) {
			return nil // written by an earlier leader since the list: next interval
		}
		w.Metrics.writes.WithLabelValues("created").Inc()
	case changed || !equality.Semantic.DeepEqual(before.ObjectMeta, obj.ObjectMeta) || before.FederatedPolicy != obj.FederatedPolicy:
		err = w.Client.Update(ctx, obj)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return nil
		}
		w.Metrics.writes.WithLabelValues("updated").Inc()
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("writing the stats of %s %s: %w", ref.Kind, name(ref), err)
	}
	return nil
}

// policy reads the policy counted: nil when it is gone; federated is the
// FederatedNetworkPolicy it derives from.
func (w *Writer) policy(ctx context.Context, ref wire.PolicyRef) (client.Object, string, error) {
	var obj client.Object
	switch policyrules.PolicyKind(ref.Kind) {
	case policyrules.KindNetworkPolicy:
		obj = &antreav1beta1.NetworkPolicy{}
	case policyrules.KindClusterNetworkPolicy:
		obj = &antreav1beta1.ClusterNetworkPolicy{}
	default:
		return nil, "", nil // a kind this controller does not know: counted nowhere
	}
	err := w.Client.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, obj)
	if apierrors.IsNotFound(err) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading %s %s: %w", ref.Kind, name(ref), err)
	}
	federated := ""
	if fnp := obj.GetLabels()[policyv1alpha1.LabelFederatedPolicy]; fnp != "" {
		federated = obj.GetNamespace() + "/" + fnp
	}
	return obj, federated, nil
}

// pointExists tells whether a point's VM still exists.
func (w *Writer) pointExists(ctx context.Context) func(string) bool {
	return func(point string) bool {
		vm, ok := strings.CutPrefix(point, PointName(""))
		ns, n, found := strings.Cut(vm, "/")
		if !ok || !found {
			return false
		}
		err := w.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: n}, &cloudv1alpha1.VirtualMachine{})
		return err == nil || !apierrors.IsNotFound(err)
	}
}

func (w *Writer) namespaceOf(ref wire.PolicyRef) string {
	if ref.Namespace == "" {
		return w.Namespace
	}
	return ref.Namespace
}

// setOwner makes the policy own its stats, so that they go with it even
// while no controller runs.
func setOwner(obj *policyv1alpha1.PolicyStats, policy client.Object, c client.Client) error {
	gvk, err := apiutil.GVKForObject(policy, c.Scheme())
	if err != nil {
		return err
	}
	obj.OwnerReferences = []metav1.OwnerReference{{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
		Name: policy.GetName(), UID: policy.GetUID()}}
	return nil
}

func name(ref wire.PolicyRef) string {
	if ref.Namespace == "" {
		return ref.Name
	}
	return ref.Namespace + "/" + ref.Name
}

// Metrics are the Writer's.
type Metrics struct {
	writes   *prometheus.CounterVec
	policies prometheus.Gauge
	seconds  prometheus.Histogram
}

// NewMetrics returns the Writer's metrics, unregistered.
func NewMetrics() *Metrics {
	return &Metrics{
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_policy_stats_writes_total",
			Help: "PolicyStats writes, by result (created, updated, deleted, error)."}, []string{"result"}),
		policies: prometheus.NewGauge(prometheus.GaugeOpts{Name: "antreaplus_policy_stats_policies",
			Help: "Policies whose rules agents count."}),
		seconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "antreaplus_policy_stats_write_seconds",
			Help: "Time to compute and write every policy's stats.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 8)}),
	}
}

// Collectors returns the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.writes, m.policies, m.seconds}
}
