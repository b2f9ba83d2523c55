package policydistribution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// AgentCheck says whether the agent of a VirtualMachine may be served now:
// the VM must exist and be agented. A nil error allows it.
type AgentCheck func(ctx context.Context, vm types.NamespacedName) error

// ServerOptions configure a Server.
type ServerOptions struct {
	// Authenticator maps tokens to identities. Required.
	Authenticator Authenticator
	// AgentlessNode is the externalNode of agentless VMs (the scope of the
	// IdentityAgentless consumer); no VM agent is ever served it.
	AgentlessNode string
	// CheckAgent, when set, is asked before every request of an agent.
	CheckAgent AgentCheck
	// OnAgentChange is told when an agent connects, disconnects or reports.
	OnAgentChange func(vm types.NamespacedName)
	// OnAgentlessReport is told when the agentless consumer reports.
	OnAgentlessReport func()
	// DNSServer is the member's DNS server as VMs reach it, host:port,
	// told to agents in every ReportResponse (empty: none).
	DNSServer string
	// Heartbeat is the interval of Bookmark events on an idle stream
	// (default 10 s); agents reconnect after three missed.
	Heartbeat time.Duration
	// WriteTimeout bounds the write of one event (default 10 s): a
	// consumer that does not read is disconnected.
	WriteTimeout time.Duration
	// ProbeWait is how long an agent's poll for probes waits (default
	// wire.ProbeWait).
	ProbeWait time.Duration
	Metrics   *Metrics
	Log       logr.Logger
}

// Server serves a Hub's rules to authenticated consumers over HTTP: each
// VM agent its VM's rules, the agentless consumer the agentless VMs'
// rules, and takes agents' reports.
type Server struct {
	hub       *Hub
	opts      ServerOptions
	agents    *agentRegistry
	agentless agentlessRegistry
	probes    *probeBroker
}

// NewServer returns a server of hub's rules.
func NewServer(hub *Hub, opts ServerOptions) *Server {
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 10 * time.Second
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	if opts.ProbeWait <= 0 {
		opts.ProbeWait = wire.ProbeWait
	}
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics()
	}
	return &Server{hub: hub, opts: opts, agents: newAgentRegistry(opts.OnAgentChange), probes: newProbeBroker()}
}

// Handler returns the API's handler: wire.PathWatch, wire.PathReport,
// wire.PathAgentlessReport and wire.PathProbes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+wire.PathWatch, s.serveWatch)
	mux.HandleFunc("POST "+wire.PathReport, s.serveReport)
	mux.HandleFunc("POST "+wire.PathAgentlessReport, s.serveAgentlessReport)
	mux.HandleFunc("GET "+wire.PathProbes, s.serveProbes)
	mux.HandleFunc("POST "+wire.PathProbes, s.serveProbes)
	return mux
}

// Agent returns the status of the agent of a VM, if it connected or
// reported since the server started.
func (s *Server) Agent(vm types.NamespacedName) (AgentStatus, bool) {
	a, ok := s.agents.status(vm)
	if ok {
		s.fillBehind(vm, &a)
	}
	return a, ok
}

// Agents returns the status of every agent, sorted by VM.
func (s *Server) Agents() []AgentStatus {
	out := s.agents.list()
	for i := range out {
		vm, _ := splitKey(out[i].VirtualMachine)
		s.fillBehind(vm, &out[i])
	}
	return out
}

// AgentsBehind counts the connected agents that have not reported
// enforcing the newest change of their VM's rules.
func (s *Server) AgentsBehind() int {
	n := 0
	for _, a := range s.Agents() {
		if a.Connected && a.Behind {
			n++
		}
	}
	return n
}

// AgentsHandler serves Agents as JSON, for an operator's debug endpoint.
func (s *Server) AgentsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(s.Agents())
	})
}

func (s *Server) fillBehind(vm types.NamespacedName, a *AgentStatus) {
	a.ScopeGeneration, _ = s.hub.ScopeGeneration(Scope{Namespace: vm.Namespace, Node: vm.Name})
	rep := a.Report
	a.Behind = rep == nil || rep.ApplyError != "" || rep.AppliedEpoch != s.hub.Epoch() || rep.AppliedGeneration < a.ScopeGeneration
}

func splitKey(key string) (types.NamespacedName, bool) {
	ns, name, ok := strings.Cut(key, "/")
	return types.NamespacedName{Namespace: ns, Name: name}, ok
}

// authenticate returns the caller's identity and scope, or writes the
// error and returns false.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (Identity, Scope, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	id, known := s.opts.Authenticator.Authenticate(strings.TrimSpace(token))
	if !ok || !known {
		s.opts.Metrics.Watches.WithLabelValues("unauthenticated").Inc()
		writeError(w, http.StatusUnauthorized, "a valid bearer token is required")
		return Identity{}, Scope{}, false
	}
	if id.Kind == IdentityAgentless {
		return id, Scope{Node: s.opts.AgentlessNode}, true
	}
	vm := id.VirtualMachine
	if vm.Name == s.opts.AgentlessNode {
		s.forbid(w, fmt.Errorf("VirtualMachine %s has the agentless node's name", vm))
		return Identity{}, Scope{}, false
	}
	if s.opts.CheckAgent != nil {
		if err := s.opts.CheckAgent(r.Context(), vm); err != nil {
			s.forbid(w, err)
			return Identity{}, Scope{}, false
		}
	}
	return id, Scope{Namespace: vm.Namespace, Node: vm.Name}, true
}

func (s *Server) forbid(w http.ResponseWriter, err error) {
	s.opts.Metrics.Watches.WithLabelValues("forbidden").Inc()
	writeError(w, http.StatusForbidden, err.Error())
}

func (s *Server) serveReport(w http.ResponseWriter, r *http.Request) {
	id, scope, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	if id.Kind != IdentityAgent {
		writeError(w, http.StatusForbidden, "only VM agents report")
		return
	}
	var rep wire.Report
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&rep); err != nil {
		writeError(w, http.StatusBadRequest, "decoding the report: "+err.Error())
		return
	}
	prev := s.agents.reported(id.VirtualMachine, &rep)
	result := "ok"
	if rep.ApplyError != "" {
		result = "apply_error"
	}
	s.opts.Metrics.Reports.WithLabelValues(result).Inc()
	if rep.AppliedEpoch == s.hub.Epoch() && (prev == nil || prev.AppliedGeneration != rep.AppliedGeneration) {
		if at, ok := s.hub.PublishedAt(scope.Node, rep.AppliedGeneration); ok {
			s.opts.Metrics.RealizationLag.Observe(time.Since(at).Seconds())
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(wire.ReportResponse{VirtualMachine: id.VirtualMachine.String(),
		Epoch: s.hub.Epoch(), Generation: s.hub.Generation(), DNSServer: s.opts.DNSServer})
}

func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request) {
	id, scope, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	since, _ := strconv.ParseUint(q.Get(wire.ParamSince), 10, 64)
	epoch := q.Get(wire.ParamEpoch)
	if q.Get(wire.ParamScope) != scope.String() {
		// The client's view is of another scope (its token changed): it
		// must start again.
		epoch = ""
	}
	watcher, resumed, err := s.hub.Watch(scope, epoch, since)
	if err != nil {
		s.opts.Metrics.Watches.WithLabelValues("not_ready").Inc()
		w.Header().Set("Retry-After", "2")
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	defer watcher.Stop()
	outcome := "sync"
	if resumed {
		outcome = "resumed"
	}
	s.opts.Metrics.Watches.WithLabelValues(outcome).Inc()
	log := s.opts.Log.WithValues("consumer", id.String(), "remote", r.RemoteAddr)
	log.V(1).Info("Watch started", "resumed", resumed, "since", since)
	gauge := s.opts.Metrics.ConnectedConsumers.WithLabelValues(string(id.Kind))
	gauge.Inc()
	defer gauge.Dec()
	if id.Kind == IdentityAgent {
		s.agents.connected(id.VirtualMachine, r.RemoteAddr)
		defer s.agents.disconnected(id.VirtualMachine)
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	err = s.stream(r.Context(), w, id, watcher, func() error { return s.recheck(r, id) })
	log.V(1).Info("Watch ended", "reason", err)
}

// recheck checks, on every heartbeat, that the token of a stream is still
// valid and still stands for the same consumer: deleting a token's Secret
// cuts the streams it opened.
func (s *Server) recheck(r *http.Request, id Identity) error {
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	now, ok := s.opts.Authenticator.Authenticate(strings.TrimSpace(token))
	if !ok || now != id {
		return errors.New("the token was revoked")
	}
	if id.Kind == IdentityAgent && s.opts.CheckAgent != nil {
		return s.opts.CheckAgent(r.Context(), id.VirtualMachine)
	}
	return nil
}

// stream writes the watcher's events until the request ends, a write
// fails, or recheck fails.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, id Identity, watcher *Watcher, recheck func() error) error {
	rc := http.NewResponseController(w)
	heartbeat := time.NewTicker(s.opts.Heartbeat)
	defer heartbeat.Stop()
	write := func(ev wire.Event) error {
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		cw := &countingWriter{w: w}
		if err := json.NewEncoder(cw).Encode(ev); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil {
			return err
		}
		// The deadline bounds this write only: over HTTP/2 a deadline left
		// set resets the idle stream when it passes, even between events.
		_ = rc.SetWriteDeadline(time.Time{})
		m := s.opts.Metrics
		m.Events.WithLabelValues(string(ev.Type)).Inc()
		m.EventBytes.Add(float64(cw.n))
		if ev.Type == wire.EventUpdate && ev.PublishedUnixNano != 0 {
			m.PushLag.Observe(time.Since(time.Unix(0, ev.PublishedUnixNano)).Seconds())
		}
		if id.Kind == IdentityAgent {
			s.agents.sent(id.VirtualMachine, &ev)
		}
		return nil
	}
	// The first event, a Bookmark when a resumed watch has nothing new,
	// tells the consumer at once that it is connected.
	first := true
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-watcher.Wake():
			events := watcher.Next()
			if first && len(events) == 0 {
				events = []wire.Event{watcher.Bookmark()}
			}
			first = false
			for _, ev := range events {
				if err := write(ev); err != nil {
					return err
				}
			}
			heartbeat.Reset(s.opts.Heartbeat)
		case <-heartbeat.C:
			if err := recheck(); err != nil {
				return err
			}
			if err := write(watcher.Bookmark()); err != nil {
				return err
			}
		}
	}
}

type countingWriter struct {
	w http.ResponseWriter
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(wire.Error{Message: msg})
}
