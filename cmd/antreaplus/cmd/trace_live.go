package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/trace"
)

// liveObservation is what a member's policy controller observed at one
// point of a live trace.
type liveObservation struct {
	Member  string                    `json:"member"`
	Trace   string                    `json:"trace"`
	Point   policyv1alpha1.TracePoint `json:"point"`
	Phase   string                    `json:"phase"`
	Message string                    `json:"message,omitempty"`
}

// liveTTL is the TTL of the CLI's Trace objects: it deletes them when
// done; the TTL covers a CLI killed before it could.
const liveTTL int32 = 300

// answerWait is how long a member's policy controller has to take up a
// computed Trace before the trace is computed here instead.
const answerWait = 5 * time.Second

// errNotAnswered: a member cannot answer Traces (no Trace CRD, no policy
// controller taking them up); the trace is computed here instead.
var errNotAnswered = errors.New("not answered")

// askMembers creates the Trace objects that have the members' policy
// controllers decide the computed trace's points (and, live, observe them:
// the destination's watcher first), waits for them, deletes them, and
// returns every point's status. res is the trace computed for its
// addresses and points.
func askMembers(ctx context.Context, errOut io.Writer, clusters []membership.Cluster, res trace.Result, protocol policyrules.Protocol,
	port int32, live bool, seconds int32) ([]liveObservation, error) {
	plan, err := trace.Traces(res, protocol, port, live, seconds)
	if err != nil {
		return nil, err
	}
	byName := map[string]membership.Cluster{}
	for _, c := range clusters {
		byName[c.Name] = c
	}
	type created struct {
		lt trace.LiveTrace
		cl client.Client
		tr *policyv1alpha1.Trace
	}
	var made []created
	defer func() {
		// Deleted whatever happened; the TTL covers a CLI killed first.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		for _, m := range made {
			_ = m.cl.Delete(dctx, m.tr)
		}
	}()
	ttl := liveTTL
	for i, lt := range plan {
		c, ok := byName[lt.Member]
		if !ok {
			return nil, fmt.Errorf("member %s is not among the contexts read", lt.Member)
		}
		cl, err := c.Client()
		if err != nil {
			return nil, err
		}
		spec := lt.Spec
		spec.TTLSecondsAfterFinished = &ttl
		tr := &policyv1alpha1.Trace{ObjectMeta: metav1.ObjectMeta{Namespace: lt.Namespace, GenerateName: "antreaplus-trace-"}, Spec: spec}
		switch err := cl.Create(ctx, tr); {
		case err == nil:
		case meta.IsNoMatchError(err) || apierrors.IsNotFound(err):
			return nil, fmt.Errorf("%s has no Trace API (%w): %w", lt.Member, err, errNotAnswered)
		case apierrors.IsForbidden(err):
			return nil, fmt.Errorf("%s: you may not create Traces in Namespace %s, which trace needs to ask the member's policy controller "+
				"(a tenant admin traces its own Namespace's workloads only; --local computes from what you can read instead): %w", lt.Member, lt.Namespace, err)
		default:
			return nil, fmt.Errorf("%s: creating a Trace in Namespace %s: %w", lt.Member, lt.Namespace, err)
		}
		made = append(made, created{lt: lt, cl: cl, tr: tr})
		if live {
			fmt.Fprintf(errOut, "%s: Trace %s/%s created (live, %d s)\n", lt.Member, tr.Namespace, tr.Name, seconds)
		}
		if live && i < len(plan)-1 {
			// The next one sends: this one's agent must be watching first.
			if err := waitTrace(ctx, cl, tr, func(st policyv1alpha1.TraceStatus) bool { return st.Phase != "" }, 30*time.Second); err != nil {
				return nil, fmt.Errorf("%s: Trace %s/%s never started (%w): is the member's policy controller running?", lt.Member, tr.Namespace, tr.Name, err)
			}
			time.Sleep(time.Second)
		}
	}
	var out []liveObservation
	limit := answerWait
	if live {
		limit = time.Duration(seconds)*time.Second + time.Minute
	}
	for _, m := range made {
		done := func(st policyv1alpha1.TraceStatus) bool {
			return st.Phase == policyv1alpha1.TraceCompleted || st.Phase == policyv1alpha1.TraceFailed
		}
		if err := waitTrace(ctx, m.cl, m.tr, done, limit); err != nil {
			if !live && m.tr.Status.Phase == "" {
				return nil, fmt.Errorf("%s: no policy controller took up Trace %s/%s within %s: %w", m.lt.Member, m.tr.Namespace, m.tr.Name, limit, errNotAnswered)
			}
			return nil, fmt.Errorf("%s: Trace %s/%s did not end within %s (%w)", m.lt.Member, m.tr.Namespace, m.tr.Name, limit, err)
		}
		if m.tr.Status.Phase == policyv1alpha1.TraceFailed {
			return nil, fmt.Errorf("%s: Trace %s/%s failed: %s", m.lt.Member, m.tr.Namespace, m.tr.Name, m.tr.Status.Message)
		}
		if m.tr.Status.Message != "" {
			fmt.Fprintf(errOut, "%s: %s\n", m.lt.Member, m.tr.Status.Message)
		}
		for _, p := range m.tr.Status.Points {
			out = append(out, liveObservation{Member: m.lt.Member, Trace: m.tr.Namespace + "/" + m.tr.Name, Point: p,
				Phase: string(m.tr.Status.Phase), Message: m.tr.Status.Message})
		}
	}
	return out, nil
}

// decide sets, on the workloads' points, the verdicts the members' policy
// controllers reported.
func decide(obs []liveObservation, source, destination *trace.Workload) {
	ends := []struct {
		w   *trace.Workload
		dir policyrules.Direction
	}{{source, policyrules.DirectionEgress}, {destination, policyrules.DirectionIngress}}
	for _, o := range obs {
		for _, e := range ends {
			if p := e.w.Point; p != nil && p.Member == o.Member && p.Endpoint == o.Point.ExternalEntity && o.Point.Direction == string(e.dir) {
				d, pending := trace.DecisionOf(o.Point, "the policy controller of "+o.Member)
				p.Decided, p.Pending = &d, pending
			}
		}
	}
}

// waitTrace re-reads tr until done says so: often at first (a computed
// Trace is answered within a tenth of a second), then every 250 ms.
func waitTrace(ctx context.Context, cl client.Client, tr *policyv1alpha1.Trace, done func(policyv1alpha1.TraceStatus) bool, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 250*time.Millisecond) {
		if err := cl.Get(ctx, client.ObjectKeyFromObject(tr), tr); err == nil && done(tr.Status) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// observedFor returns the observation of a step's point, if any.
func observedFor(obs []liveObservation, s trace.Step) (liveObservation, bool) {
	want := policyrules.DirectionEgress
	if s.Kind == trace.StepIngress {
		want = policyrules.DirectionIngress
	}
	for _, o := range obs {
		if o.Member == s.Member && o.Point.ExternalEntity == s.Point && o.Point.Direction == string(want) {
			return o, true
		}
	}
	return liveObservation{}, false
}

// observedLine says what a point observed, beside the computed verdict.
func observedLine(o liveObservation) string {
	p := o.Point
	if p.Observed == nil {
		return "observed: nothing (the agent did not answer; see the Trace's message)"
	}
	s := "observed: " + p.Observed.Verdict
	if p.Observed.Rule != "" {
		s += " by " + p.Observed.Rule
	}
	if p.Connected != nil {
		if *p.Connected {
			s += ", connected"
		} else {
			s += ", not connected"
		}
	}
	switch {
	case p.Agrees != nil && *p.Agrees:
		s += " (agrees)"
	case p.Observed.Note != "":
		s += " — DIFFERS: " + p.Observed.Note
	default:
		s += " — DIFFERS"
	}
	return s
}
