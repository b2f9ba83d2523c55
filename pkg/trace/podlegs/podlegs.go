// Package podlegs has Antrea decide the Pod legs of a trace: it creates in
// each Pod's member the Traceflows that trace.Traceflows plans, waits for
// Antrea's answer, reads which rule decided and from which
// FederatedNetworkPolicy its policy is derived, and deletes them
// (docs/trace.md, "Pods: Antrea's Traceflow").
//
// A member without Antrea (no traceflows.crd.antrea.io served), a user who
// may not create Traceflows (cluster-scoped: Antrea's RBAC), or an Antrea
// that does not answer within the limit leaves the leg undecided, saying
// which; nothing else of the trace waits on it.
//
// # Usage
//
// tracing.Run creates the plans' Traceflows (Start), waits, live, for
// Antrea to watch (WaitRunning), sets the legs' decisions (Finish) and
// deletes them (Delete); tested against a real API server in
// test/integration/policycli/traceflow_test.go.
package podlegs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tfv1beta1 "antreaplus.io/antreaplus/api/antrea/traceflow/v1beta1"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/objwait"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/trace"
)

// Run is one planned Traceflow: created in its member, or why not.
type Run struct {
	Plan trace.TraceflowPlan
	// Traceflow is the object created; nil when it was not (Why says so).
	Traceflow *tfv1beta1.Traceflow
	// Why the Traceflow was not created, or did not end with an answer.
	Why string
	cl  client.WithWatch
}

// by names the Traceflow, for a step's "decided by".
func (r *Run) by() string {
	return fmt.Sprintf("Antrea's Traceflow %s in %s", r.Traceflow.Name, r.Plan.Member)
}

// Start creates the plans' Traceflows, each in its member through
// clientOf, concurrently. A plan that cannot be created keeps the reason
// in its Run.
func Start(ctx context.Context, clientOf func(member string) (client.WithWatch, error), plans []trace.TraceflowPlan) []*Run {
	runs := make([]*Run, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		runs[i] = &Run{Plan: p}
		wg.Go(func() { runs[i].create(ctx, clientOf) })
	}
	wg.Wait()
	return runs
}

func (r *Run) create(ctx context.Context, clientOf func(member string) (client.WithWatch, error)) {
	cl, err := clientOf(r.Plan.Member)
	if err != nil {
		r.Why = err.Error()
		return
	}
	tf := &tfv1beta1.Traceflow{ObjectMeta: metav1.ObjectMeta{GenerateName: "antreaplus-trace-",
		Labels: map[string]string{policyv1alpha1.LabelManagedBy: policyv1alpha1.ManagedByTrace}}, Spec: r.Plan.Spec}
	switch err := cl.Create(ctx, tf); {
	case err == nil:
		r.Traceflow, r.cl = tf, cl
	case meta.IsNoMatchError(err) || apierrors.IsNotFound(err):
		r.Why = fmt.Sprintf("Antrea's Traceflow is not served in %s (no %s): Antrea does not run there, or without its Traceflow feature",
			r.Plan.Member, tfv1beta1.CRDName)
	case apierrors.IsForbidden(err):
		r.Why = fmt.Sprintf("you may not create Traceflows in %s (cluster-scoped: Antrea's RBAC grants it to cluster admins): %v", r.Plan.Member, err)
	default:
		r.Why = fmt.Sprintf("creating a Traceflow in %s: %v", r.Plan.Member, err)
	}
}

// WaitRunning waits, within limit, until Antrea has started every live
// Traceflow (phase Running or later): only then is a real packet traced.
// One that is not started by then is given up, saying so.
func WaitRunning(ctx context.Context, runs []*Run, limit time.Duration) {
	each(runs, func(r *Run) {
		if !r.Plan.Spec.LiveTraffic {
			return
		}
		if err := r.wait(ctx, limit, func(st tfv1beta1.TraceflowStatus) bool { return st.Phase != "" }); err != nil {
			r.Why = fmt.Sprintf("Antrea did not start Traceflow %s in %s within %s (%v): is antrea-controller running with its Traceflow feature gate?",
				r.Traceflow.Name, r.Plan.Member, limit, err)
		}
	})
}

// Finish waits, within limit, for every Traceflow to end and sets the
// decision of the legs each decides on source and destination (an
// undecided one where Antrea was not asked or did not answer, with why).
// srcWhy and dstWhy are the planner's reasons for Pod legs no Traceflow
// decides.
func Finish(ctx context.Context, runs []*Run, limit time.Duration, source, destination *trace.Workload, srcWhy, dstWhy string) {
	each(runs, func(r *Run) {
		if r.Traceflow == nil || r.Why != "" {
			return
		}
		done := func(st tfv1beta1.TraceflowStatus) bool {
			return st.Phase == tfv1beta1.PhaseSucceeded || st.Phase == tfv1beta1.PhaseFailed
		}
		if err := r.wait(ctx, limit, done); err != nil {
			r.Why = fmt.Sprintf("Antrea did not answer Traceflow %s in %s within %s (%v)", r.Traceflow.Name, r.Plan.Member, limit, err)
		}
	})
	undecided := func(why string) *trace.Decision { return &trace.Decision{Result: trace.Undecided, Note: why} }
	if source.Pod != nil && srcWhy != "" {
		source.Delegated = undecided(srcWhy)
	}
	if destination.Pod != nil && dstWhy != "" {
		destination.Delegated = undecided(dstWhy)
	}
	for _, r := range runs {
		ends := []struct {
			decides bool
			w       *trace.Workload
			dir     policyrules.Direction
		}{{r.Plan.Source, source, policyrules.DirectionEgress}, {r.Plan.Destination, destination, policyrules.DirectionIngress}}
		for _, e := range ends {
			switch {
			case !e.decides:
			case r.Why != "":
				e.w.Delegated = undecided(r.Why)
			default:
				d := trace.FromTraceflow(r.Traceflow.Status, e.dir, r.by())
				if d.Rule != nil {
					d.Rule.Federated = r.federated(ctx, d.Rule.Policy)
				}
				e.w.Delegated = &d
			}
		}
	}
}

// Delete deletes the Traceflows created, whatever happened (within 10 s
// of its own: ctx may be cancelled by then).
func Delete(ctx context.Context, runs []*Run) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	each(runs, func(r *Run) {
		if r.Traceflow != nil {
			_ = r.cl.Delete(ctx, r.Traceflow)
		}
	})
}

func (r *Run) wait(ctx context.Context, limit time.Duration, done func(tfv1beta1.TraceflowStatus) bool) error {
	if r.Traceflow == nil {
		return errors.New(r.Why)
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	return objwait.Until(ctx, r.cl, r.Traceflow, &tfv1beta1.TraceflowList{},
		func(tf *tfv1beta1.Traceflow) bool { return done(tf.Status) })
}

// federated is the FederatedNetworkPolicy an Antrea NetworkPolicy named as
// Antrea names it ("AntreaNetworkPolicy:namespace/name") is derived from,
// "" when it is none (or cannot be read).
func (r *Run) federated(ctx context.Context, policy string) string {
	kind, key, ok := strings.Cut(policy, ":")
	if !ok || kind != string(policyrules.KindNetworkPolicy) {
		return ""
	}
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		return ""
	}
	var np antreav1beta1.NetworkPolicy
	if err := r.cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &np); err != nil {
		return ""
	}
	if from := np.Labels[policyv1alpha1.LabelFederatedPolicy]; from != "" {
		return ns + "/" + from
	}
	return ""
}

// each runs f for every run, concurrently.
func each(runs []*Run, f func(*Run)) {
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() { f(r) })
	}
	wg.Wait()
}
