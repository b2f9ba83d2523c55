package cmd

import (
	"context"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// runLive creates the Trace objects that observe the computed trace's
// points (the destination's watcher first), waits for them, deletes them,
// and returns what each point observed.
func runLive(ctx context.Context, errOut io.Writer, clusters []membership.Cluster, res trace.Result, protocol policyrules.Protocol,
	port int32, seconds int32) ([]liveObservation, error) {
	plan, err := trace.PlanLive(res, protocol, port, seconds)
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
		if err := cl.Create(ctx, tr); err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
				return nil, fmt.Errorf("%s: creating a Trace in Namespace %s: %w (the member needs the Trace CRD and a policy controller; you need the right to create Traces there)",
					lt.Member, lt.Namespace, err)
			}
			return nil, fmt.Errorf("%s: creating a Trace in Namespace %s: %w", lt.Member, lt.Namespace, err)
		}
		made = append(made, created{lt: lt, cl: cl, tr: tr})
		fmt.Fprintf(errOut, "%s: Trace %s/%s created (live, %d s)\n", lt.Member, tr.Namespace, tr.Name, seconds)
		if i < len(plan)-1 {
			// The next one sends: this one's agent must be watching first.
			if err := waitTrace(ctx, cl, tr, func(st policyv1alpha1.TraceStatus) bool { return st.Phase != "" }, 30*time.Second); err != nil {
				return nil, fmt.Errorf("%s: Trace %s/%s never started (%w): is the member's policy controller running?", lt.Member, tr.Namespace, tr.Name, err)
			}
			time.Sleep(time.Second)
		}
	}
	var out []liveObservation
	limit := time.Duration(seconds)*time.Second + time.Minute
	for _, m := range made {
		done := func(st policyv1alpha1.TraceStatus) bool {
			return st.Phase == policyv1alpha1.TraceCompleted || st.Phase == policyv1alpha1.TraceFailed
		}
		if err := waitTrace(ctx, m.cl, m.tr, done, limit); err != nil {
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

// waitTrace re-reads tr until done says so.
func waitTrace(ctx context.Context, cl client.Client, tr *policyv1alpha1.Trace, done func(policyv1alpha1.TraceStatus) bool, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		if err := cl.Get(ctx, client.ObjectKeyFromObject(tr), tr); err == nil && done(tr.Status) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
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
