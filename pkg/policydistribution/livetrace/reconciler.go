package livetrace

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	ctrl "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/trace"
)

// +kubebuilder:rbac:groups=policy.antreaplus.io,resources=traces,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=policy.antreaplus.io,resources=traces/status,verbs=get;update
// +kubebuilder:rbac:groups=crd.antrea.io,resources=externalentities,verbs=get;list;watch
// +kubebuilder:rbac:groups=crd.antrea.io,resources=networkpolicies;clusternetworkpolicies,verbs=get;list;watch

// Rules is what the reconciler reads of the rules served: the hub.
type Rules interface {
	Endpoint(name string) (node string, ep wire.Endpoint, ok bool)
	// Ready reports whether the rules are complete: compiled from every
	// object once the informers synced. Before, a point without rules
	// may only be one not compiled yet.
	Ready() bool
}

// Cloud is what the agentless enforcer last reported of its endpoints:
// the distribution server.
type Cloud interface {
	Findings(endpoint string) []wire.Finding
}

// maxFindings is as many findings as a point's status holds (the CRD's
// limit).
const maxFindings = 64

// Prober asks VM agents for probes: the distribution server.
type Prober interface {
	Probe(ctx context.Context, vm types.NamespacedName, req wire.ProbeRequest, onTaken func()) (wire.ProbeResult, error)
}

// notReadyRetry is how soon a Trace is looked at again while the rules
// are not compiled yet.
const notReadyRetry = 500 * time.Millisecond

// Reconciler fills in Traces.
type Reconciler struct {
	Client ctrl.Client
	Rules  Rules
	Prober Prober
	// Cloud, when set, adds the agentless enforcer's findings to its
	// points.
	Cloud Cloud
	// AgentlessNode is the externalNode of agentless points: no agent
	// probes them (their security groups are computed only).
	AgentlessNode string
	Metrics       *Metrics
	Log           logr.Logger
	now           func() time.Time
}

// Metrics of the reconciler.
type Metrics struct {
	Traces *prometheus.CounterVec
	Probes *prometheus.CounterVec
}

// NewMetrics returns the reconciler's metrics, unregistered.
func NewMetrics() *Metrics {
	return &Metrics{
		Traces: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_traces_total",
			Help: "Traces the policy controller ended, by phase and by whether every observed verdict agreed with the computed one."},
			[]string{"phase", "agrees"}),
		Probes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "antreaplus_trace_probes_total",
			Help: "Live probes asked of VM agents, by role and result (observed, not_seen, error)."},
			[]string{"role", "result"}),
	}
}

// Collectors returns the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Traces, m.Probes}
}

// SetupWithManager registers the reconciler. Live traces wait on agents,
// so several run at once.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	if r.Metrics == nil {
		r.Metrics = NewMetrics()
	}
	return builder.ControllerManagedBy(mgr).Named("trace").
		For(&policyv1alpha1.Trace{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(r)
}

func (r *Reconciler) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// Reconcile traces a new Trace, and deletes an ended one past its TTL.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	tr := &policyv1alpha1.Trace{}
	if err := r.Client.Get(ctx, req.NamespacedName, tr); err != nil {
		return reconcile.Result{}, ctrl.IgnoreNotFound(err)
	}
	if tr.Status.Phase == policyv1alpha1.TraceCompleted || tr.Status.Phase == policyv1alpha1.TraceFailed {
		return r.expire(ctx, tr)
	}
	log := r.Log.WithValues("trace", req.NamespacedName)
	if !r.Rules.Ready() {
		// A point the first compile has not reached would be computed as
		// "no policy applies": wrong, not merely late.
		log.V(1).Info("The policies are not compiled yet; waiting")
		return reconcile.Result{RequeueAfter: notReadyRetry}, nil
	}
	points, err := r.points(ctx, tr)
	if err != nil {
		return r.end(ctx, tr, policyv1alpha1.TraceFailed, err.Error(), nil)
	}
	now := metav1.NewTime(r.clock())
	tr.Status = policyv1alpha1.TraceStatus{Phase: policyv1alpha1.TraceRunning, StartTime: &now}
	if err := r.Client.Status().Update(ctx, tr); err != nil {
		return reconcile.Result{}, fmt.Errorf("marking the trace running: %w", err)
	}
	protocol := policyrules.Protocol(tr.Spec.Protocol)
	if protocol == "" {
		protocol = policyrules.ProtocolTCP
	}
	status := make([]policyv1alpha1.TracePoint, len(points))
	computed := make([]Computed, len(points))
	for i, p := range points {
		computed[i] = Compute(p.Point, protocol, tr.Spec.Port)
		status[i] = policyv1alpha1.TracePoint{ExternalEntity: p.Endpoint, Direction: string(p.Direction),
			Enforcer: p.Enforcer, Computed: computed[i].Verdict}
		r.explain(ctx, p.Rules, &status[i])
		if r.Cloud != nil && p.Served {
			f := Findings(r.Cloud.Findings(p.Endpoint), p.Rules)
			status[i].Findings = f[:min(len(f), maxFindings)]
		}
	}
	msg := ""
	if tr.Spec.Live {
		msg = r.live(ctx, tr, protocol, points, computed, status)
	}
	log.V(1).Info("Traced", "points", len(points), "verdict", FlowVerdict(status))
	return r.end(ctx, tr, policyv1alpha1.TraceCompleted, msg, status)
}

// explain adds to a point's status what its rules' policies say: the
// FederatedNetworkPolicy the deciding rule's policy is derived from, and
// the policies not realised yet. It reads the informers' cache; a policy
// it cannot read adds nothing.
func (r *Reconciler) explain(ctx context.Context, rules []policyrules.CompiledRule, st *policyv1alpha1.TracePoint) {
	type known struct {
		federated, unrealized string
	}
	policies := map[policyrules.PolicyRef]known{}
	read := func(ref policyrules.PolicyRef) known {
		if k, ok := policies[ref]; ok {
			return k
		}
		var k known
		key := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
		switch ref.Kind {
		case policyrules.KindNetworkPolicy:
			np := &antreav1beta1.NetworkPolicy{}
			if err := r.Client.Get(ctx, key, np); err == nil {
				if from := np.Labels[policyv1alpha1.LabelFederatedPolicy]; from != "" {
					k.federated = np.Namespace + "/" + from
				}
				k.unrealized = trace.Unrealized(np.Generation, np.Status)
			}
		case policyrules.KindClusterNetworkPolicy:
			acnp := &antreav1beta1.ClusterNetworkPolicy{}
			if err := r.Client.Get(ctx, key, acnp); err == nil {
				k.unrealized = trace.Unrealized(acnp.Generation, acnp.Status)
			}
		}
		policies[ref] = k
		return k
	}
	if d := st.Computed.DecidedBy; d != nil {
		for _, rule := range rules {
			if rule.Policy.String() == d.Policy {
				d.FederatedPolicy = read(rule.Policy).federated
				break
			}
		}
	}
	st.Pending = trace.Pending(rules, func(ref policyrules.PolicyRef) string { return read(ref).unrealized })
}

// localPoint is a Point and what probing it needs.
type localPoint struct {
	Point
	vm      types.NamespacedName
	agented bool
}

// points resolves the Trace's ends in its Namespace.
func (r *Reconciler) points(ctx context.Context, tr *policyv1alpha1.Trace) ([]localPoint, error) {
	type end struct {
		entity *antreav1alpha2.ExternalEntity
		addr   netip.Addr
	}
	var ends [2]end
	for i, e := range []policyv1alpha1.TraceEnd{tr.Spec.Source, tr.Spec.Destination} {
		which := [2]string{"source", "destination"}[i]
		if e.Address != "" {
			a, err := netip.ParseAddr(e.Address)
			if err != nil {
				return nil, fmt.Errorf("spec.%s.address %q is not an IP address", which, e.Address)
			}
			ends[i].addr = a
		}
		if e.ExternalEntity == "" {
			continue
		}
		ee := &antreav1alpha2.ExternalEntity{}
		if err := r.Client.Get(ctx, types.NamespacedName{Namespace: tr.Namespace, Name: e.ExternalEntity}, ee); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("spec.%s.externalEntity: no ExternalEntity %q in Namespace %s of this member (a Trace traces its own Namespace's workloads)",
					which, e.ExternalEntity, tr.Namespace)
			}
			return nil, fmt.Errorf("reading ExternalEntity %s/%s: %w", tr.Namespace, e.ExternalEntity, err)
		}
		ends[i].entity = ee
		if !ends[i].addr.IsValid() {
			for _, ep := range ee.Spec.Endpoints {
				if a, err := netip.ParseAddr(ep.IP); err == nil {
					ends[i].addr = a
					break
				}
			}
		}
	}
	var out []localPoint
	for i, dir := range []policyrules.Direction{policyrules.DirectionEgress, policyrules.DirectionIngress} {
		ee := ends[i].entity
		if ee == nil {
			continue
		}
		peer := ends[1-i].addr
		if !peer.IsValid() {
			which := [2]string{"destination", "source"}[i]
			return nil, fmt.Errorf("spec.%s.address is required: the %s point decides by the other end's address as it sees it", which, dir)
		}
		name := ee.Namespace + "/" + ee.Name
		p := localPoint{Point: Point{Endpoint: name, Direction: dir, Enforcer: ee.Spec.ExternalNode, Peer: peer},
			vm: types.NamespacedName{Namespace: ee.Namespace, Name: ee.Spec.ExternalNode}}
		p.agented = ee.Spec.ExternalNode != "" && ee.Spec.ExternalNode != r.AgentlessNode
		if node, ep, ok := r.Rules.Endpoint(name); ok {
			p.Served, p.Rules, p.Enforcer = true, ep.CompiledRules(), node
		}
		out = append(out, p)
	}
	return out, nil
}

// live asks the points' agents for probes: the destination's Watch first,
// then, once its agent has taken it, the source's Send. It fills in the
// observed verdicts and returns what the reader should know.
func (r *Reconciler) live(ctx context.Context, tr *policyv1alpha1.Trace, protocol policyrules.Protocol, points []localPoint,
	computed []Computed, status []policyv1alpha1.TracePoint) string {
	seconds := tr.Spec.TimeoutSeconds
	if seconds <= 0 {
		seconds = 10
	}
	// The agents get the window, plus time to take the probe and answer.
	ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second+wire.ProbeWait+10*time.Second)
	defer cancel()
	var notes []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }
	var wg sync.WaitGroup
	watching := make(chan struct{})
	hasWatch := false
	// Points are in path order (egress, ingress): start the watch first.
	for i := len(points) - 1; i >= 0; i-- {
		p := points[i]
		if !p.agented {
			note(fmt.Sprintf("%s is enforced agentless (security groups): computed only", p.Endpoint))
			continue
		}
		role := wire.ProbeSend
		if p.Direction == policyrules.DirectionIngress {
			role, hasWatch = wire.ProbeWatch, true
		}
		req := wire.ProbeRequest{ID: fmt.Sprintf("%s/%s/%s/%s", tr.Namespace, tr.Name, tr.UID, role), Role: role, Endpoint: p.Endpoint,
			Protocol: protocol, Port: tr.Spec.Port, Peer: p.Peer, Seconds: seconds}
		if role == wire.ProbeSend && hasWatch {
			// Send only once the watch is in place (or given up on).
			select {
			case <-watching:
			case <-ctx.Done():
			}
		}
		var onTaken func()
		if role == wire.ProbeWatch {
			var once sync.Once
			onTaken = func() { once.Do(func() { close(watching) }) }
		}
		wg.Go(func() {
			res, err := r.Prober.Probe(ctx, p.vm, req, onTaken)
			switch {
			case err != nil:
				r.Metrics.Probes.WithLabelValues(string(role), "error").Inc()
				note(fmt.Sprintf("%s: %v", p.Endpoint, err))
				return
			case res.Error != "":
				r.Metrics.Probes.WithLabelValues(string(role), "error").Inc()
				note(fmt.Sprintf("%s: the agent could not trace: %s", p.Endpoint, res.Error))
				return
			}
			result := "observed"
			if res.Observation.Verdict == wire.ObservedNotSeen {
				result = "not_seen"
			}
			r.Metrics.Probes.WithLabelValues(string(role), result).Inc()
			obs, agrees := Observe(computed[i], res.Observation)
			mu.Lock()
			status[i].Observed, status[i].Agrees = &obs, &agrees
			if role == wire.ProbeSend && protocol == policyrules.ProtocolTCP {
				connected := res.Connected
				status[i].Connected = &connected
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return strings.Join(notes, "; ")
}

// end writes the Trace's last status.
func (r *Reconciler) end(ctx context.Context, tr *policyv1alpha1.Trace, phase policyv1alpha1.TracePhase, msg string,
	points []policyv1alpha1.TracePoint) (reconcile.Result, error) {
	now := metav1.NewTime(r.clock())
	start := tr.Status.StartTime
	if start == nil {
		start = &now
	}
	tr.Status = policyv1alpha1.TraceStatus{Phase: phase, Message: msg, StartTime: start, CompletionTime: &now, Points: points}
	agrees := "true"
	if phase == policyv1alpha1.TraceCompleted {
		tr.Status.Verdict = FlowVerdict(points)
	}
	for _, p := range points {
		if p.Agrees != nil && !*p.Agrees {
			agrees = "false"
		}
	}
	if err := r.Client.Status().Update(ctx, tr); err != nil {
		return reconcile.Result{}, fmt.Errorf("writing the trace's result: %w", err)
	}
	r.Metrics.Traces.WithLabelValues(string(phase), agrees).Inc()
	return reconcile.Result{RequeueAfter: ttl(tr)}, nil
}

func ttl(tr *policyv1alpha1.Trace) time.Duration {
	if tr.Spec.TTLSecondsAfterFinished == nil {
		return 600 * time.Second
	}
	return time.Duration(*tr.Spec.TTLSecondsAfterFinished) * time.Second
}

// expire deletes an ended Trace once its TTL has passed.
func (r *Reconciler) expire(ctx context.Context, tr *policyv1alpha1.Trace) (reconcile.Result, error) {
	ended := tr.CreationTimestamp.Time
	if tr.Status.CompletionTime != nil {
		ended = tr.Status.CompletionTime.Time
	}
	if left := ended.Add(ttl(tr)).Sub(r.clock()); left > 0 {
		return reconcile.Result{RequeueAfter: left}, nil
	}
	if err := r.Client.Delete(ctx, tr, ctrl.Preconditions{UID: &tr.UID}); err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("deleting the expired trace: %w", err)
	}
	return reconcile.Result{}, nil
}
