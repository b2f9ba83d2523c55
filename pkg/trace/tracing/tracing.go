// Package tracing runs one trace against the members (docs/trace.md):
// reads what the flow's ends need (gather), has Antrea decide the Pod legs
// (podlegs), asks the points' members to decide theirs through Trace
// objects (and, live, to observe them), or compiles their policies here,
// and computes the path (trace.Compute). `antreaplus trace` and the
// console's trace form both call Run.
//
// # Usage
//
// `antreaplus trace` and the console's trace form build a Request and call
// Run; tested against real API servers in
// test/integration/policycli/trace_test.go and
// test/integration/policycli/traceflow_test.go, and in the browser by
// test/e2e/console/views_test.go.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/objwait"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/trace"
	"antreaplus.io/antreaplus/pkg/trace/gather"
	"antreaplus.io/antreaplus/pkg/trace/podlegs"
)

// Request is one flow to trace.
type Request struct {
	From, To gather.Spec
	Protocol policyrules.Protocol
	// Port is the destination port; 0: any (nothing is asked of the
	// members then: a Trace traces one port).
	Port int32
	// Namespace, when set, is where the ends are looked for.
	Namespace string
	// Timeout bounds each member's reads.
	Timeout time.Duration
	// Live also sends the flow for real (LiveSeconds: the agents' wait).
	Live        bool
	LiveSeconds int32
	// Local reads the members whole and compiles here instead of asking
	// them; it writes nothing.
	Local bool
}

// Validate says what is wrong with r, nil when nothing.
func (r Request) Validate() error {
	switch r.Protocol {
	case policyrules.ProtocolTCP, policyrules.ProtocolUDP, policyrules.ProtocolSCTP:
	default:
		return fmt.Errorf("protocol %q: use TCP, UDP or SCTP", r.Protocol)
	}
	if r.Port < 0 || r.Port > 65535 {
		return fmt.Errorf("port %d: want 1 to 65535 (0: any port)", r.Port)
	}
	if r.Live && r.Port == 0 {
		return errors.New("a live trace sends a real flow: give a port")
	}
	if r.Live && (r.LiveSeconds < 1 || r.LiveSeconds > 30) {
		return fmt.Errorf("live timeout %d: want 1 to 30 seconds", r.LiveSeconds)
	}
	return nil
}

// Report is a trace's outcome, as the command prints it.
type Report struct {
	From     string       `json:"from"`
	To       string       `json:"to"`
	Protocol string       `json:"protocol"`
	Port     int32        `json:"port,omitempty"`
	Result   trace.Result `json:"trace"`
	// Live is what the agents observed (a live trace).
	Live []Observation `json:"live,omitempty"`
	// Took is where the time went: reading the members, and deciding (the
	// members' Traces, or compiling here).
	Took Timings `json:"took"`
}

// Timings are a trace's stages, as durations ("120ms").
type Timings struct {
	Read string `json:"read"`
	// Connect is the part of Read spent making the clients and reading
	// the members' identities (the slowest member's).
	Connect string `json:"connect"`
	Decide  string `json:"decide"`
	// By says who decided: "members" (Trace objects) or "here".
	By string `json:"by"`
}

// Observation is what a member's policy controller observed at one point
// of a live trace.
type Observation struct {
	Member  string                    `json:"member"`
	Trace   string                    `json:"trace"`
	Point   policyv1alpha1.TracePoint `json:"point"`
	Phase   string                    `json:"phase"`
	Message string                    `json:"message,omitempty"`
}

// Run traces req through the members of clusters; progress gets what a
// person following along would want to know (members not read, a member
// that could not answer).
func Run(ctx context.Context, clusters []membership.Cluster, req Request, progress io.Writer) (Report, error) {
	if err := req.Validate(); err != nil {
		return Report{}, err
	}
	started := time.Now()
	w := read(ctx, progress, clusters, req)
	readTook := time.Since(started)
	source, _, err := w.Workload(req.From, req.Namespace, "")
	if err != nil {
		return Report{}, fmt.Errorf("source: %w", err)
	}
	dest, resolved, err := w.Workload(req.To, req.Namespace, source.Member)
	if err != nil {
		return Report{}, fmt.Errorf("destination: %w", err)
	}
	q := trace.Query{Source: source, Destination: dest, Protocol: req.Protocol, Port: req.Port, Resolved: resolved, Flat: w.Flat}
	report := Report{From: source.Name, To: dest.Name, Protocol: string(req.Protocol), Port: req.Port}
	// A Pod's leg is Antrea's: its Traceflow in the Pod's member, started
	// first (a live one must watch before anything is sent).
	pods := startPodLegs(ctx, w, q, req)
	defer podlegs.Delete(ctx, pods.runs)
	asked, err := decideAsked(ctx, progress, w, &q, req, &report)
	if err != nil {
		return Report{}, err
	}
	if !asked {
		if err := decideHere(ctx, progress, w, &q, req, &report); err != nil {
			return Report{}, err
		}
	}
	pods.finish(ctx, &q)
	report.Result = trace.Compute(q)
	report.Took = Timings{Read: readTook.Round(time.Millisecond).String(), Connect: w.Connected().Round(time.Millisecond).String(),
		Decide: (time.Since(started) - readTook).Round(time.Millisecond).String(), By: "here"}
	if asked {
		report.Took.By = "members"
	}
	return report, nil
}

// decideAsked has the points' members decide them, from the rules their
// policy controllers serve the enforcers; false when they cannot (and the
// trace is decided here).
func decideAsked(ctx context.Context, progress io.Writer, w *gather.World, q *trace.Query, req Request, report *Report) (bool, error) {
	if req.Local || req.Port == 0 {
		return false, nil
	}
	obs, err := askMembers(ctx, progress, w.Client, trace.Compute(*q), req.Protocol, req.Port, req.Live, req.LiveSeconds)
	switch {
	case err == nil:
		decide(obs, &q.Source, &q.Destination)
		if req.Live {
			report.Live = obs
		}
		return true, nil
	case errors.Is(err, errNotAnswered):
		fmt.Fprintf(progress, "%v: computing the trace here\n", err)
		return false, nil
	case errors.Is(err, trace.ErrNoPoint), errors.Is(err, trace.ErrNoAddresses) && !req.Live:
		return true, nil // nothing to decide
	case errors.Is(err, trace.ErrNoAddresses):
		return false, fmt.Errorf("--live: nothing can be sent: %w; without --live the trace says why", err)
	}
	return false, err
}

// decideHere reads the points' members whole and compiles their policies
// as their policy controllers do; live, it then has the agents observe.
func decideHere(ctx context.Context, progress io.Writer, w *gather.World, q *trace.Query, req Request, report *Report) error {
	var members []string
	for _, wl := range []trace.Workload{q.Source, q.Destination} {
		if wl.Point != nil {
			members = append(members, wl.Point.Member)
		}
	}
	w.Complete(ctx, members...)
	if err := w.Compile(&q.Source, &q.Destination); err != nil {
		return err
	}
	q.Federated = w.Federated()
	if req.Live {
		var err error
		if report.Live, err = askMembers(ctx, progress, w.Client, trace.Compute(*q), req.Protocol, req.Port, true, req.LiveSeconds); err != nil {
			return fmt.Errorf("live trace: %w", err)
		}
	}
	return nil
}

// read reads the members: what the flow's ends need (ReadFor), or
// everything (Local).
func read(ctx context.Context, progress io.Writer, clusters []membership.Cluster, req Request) *gather.World {
	var w *gather.World
	if req.Local {
		fmt.Fprintf(progress, "reading %d member(s) whole ...\n", len(clusters))
		w = gather.Read(ctx, clusters, req.Timeout)
	} else {
		w = gather.ReadFor(ctx, clusters, req.Timeout, req.Namespace, req.From, req.To)
	}
	for _, m := range w.Members {
		switch {
		case m.Err != nil:
			fmt.Fprintf(progress, "%s: not read: %v\n", m.Context, m.Err)
		case len(m.Partial) > 0:
			fmt.Fprintf(progress, "%s: partly read (%s not read)\n", m.Context, strings.Join(m.Partial, ", "))
		}
	}
	return w
}

// podLegs are the Traceflows of a trace's Pod legs.
type podLegs struct {
	runs           []*podlegs.Run
	srcWhy, dstWhy string
	limit          time.Duration
}

// startPodLegs creates the Traceflows that have Antrea decide the flow's
// Pod legs, in the Pods' members (none with --local, which only reads, or
// without a port); a live one is waited for until Antrea traces packets.
func startPodLegs(ctx context.Context, w *gather.World, q trace.Query, req Request) podLegs {
	live, seconds, port := req.Live, req.LiveSeconds, req.Port
	if req.Local || port == 0 || (q.Source.Pod == nil && q.Destination.Pod == nil) {
		return podLegs{}
	}
	l := podLegs{limit: answerWait}
	timeout := int32(answerWait / time.Second)
	if live {
		timeout = seconds + 5
		l.limit = time.Duration(timeout)*time.Second + 10*time.Second // Antrea looks for timeouts every 10 s
	}
	var plans []trace.TraceflowPlan
	plans, l.srcWhy, l.dstWhy = trace.Traceflows(q.Source, q.Destination, trace.Compute(q), q.Protocol, port, live, timeout)
	l.runs = podlegs.Start(ctx, w.Client, plans)
	if live {
		podlegs.WaitRunning(ctx, l.runs, 10*time.Second)
	}
	return l
}

// finish waits for Antrea's answers and sets the Pod legs' decisions.
func (l podLegs) finish(ctx context.Context, q *trace.Query) {
	if l.runs != nil || l.srcWhy != "" || l.dstWhy != "" {
		podlegs.Finish(ctx, l.runs, l.limit, &q.Source, &q.Destination, l.srcWhy, l.dstWhy)
	}
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
func askMembers(ctx context.Context, errOut io.Writer, clientOf func(member string) (client.WithWatch, error), res trace.Result,
	protocol policyrules.Protocol, port int32, live bool, seconds int32) ([]Observation, error) {
	plan, err := trace.Traces(res, protocol, port, live, seconds)
	if err != nil {
		return nil, err
	}
	type created struct {
		lt trace.LiveTrace
		cl client.WithWatch
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
		cl, err := clientOf(lt.Member)
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
	var out []Observation
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
			out = append(out, Observation{Member: m.lt.Member, Trace: m.tr.Namespace + "/" + m.tr.Name, Point: p,
				Phase: string(m.tr.Status.Phase), Message: m.tr.Status.Message})
		}
	}
	return out, nil
}

// decide sets, on the workloads' points, the verdicts the members' policy
// controllers reported.
func decide(obs []Observation, source, destination *trace.Workload) {
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

// waitTrace follows tr until done says so, within limit, through a watch
// (objwait): a computed Trace is answered within a tenth of a second,
// which polling would round up to its interval.
func waitTrace(ctx context.Context, cl client.WithWatch, tr *policyv1alpha1.Trace, done func(policyv1alpha1.TraceStatus) bool, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	return objwait.Until(ctx, cl, tr, &policyv1alpha1.TraceList{}, func(t *policyv1alpha1.Trace) bool { return done(t.Status) })
}

// ObservedFor returns the observation of a step's point, if any.
func ObservedFor(obs []Observation, s trace.Step) (Observation, bool) {
	want := policyrules.DirectionEgress
	if s.Kind == trace.StepIngress {
		want = policyrules.DirectionIngress
	}
	for _, o := range obs {
		if o.Member == s.Member && o.Point.ExternalEntity == s.Point && o.Point.Direction == string(want) {
			return o, true
		}
	}
	return Observation{}, false
}

// ObservedLine says what a point observed, beside the computed verdict.
func ObservedLine(o Observation) string {
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
