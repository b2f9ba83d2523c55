package policydistribution

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// AgentlessStatus is what the agentless consumers last reported, merged.
type AgentlessStatus struct {
	Report     wire.AgentlessReport `json:"report"`
	ReportedAt time.Time            `json:"reportedAt"`
}

// agentlessRegistry holds the last AgentlessReport of each reporter (the
// replicas of the cloud controllers that share the tenants, each enforcing
// the endpoints of its own).
type agentlessRegistry struct {
	mu      sync.Mutex
	reports map[string]AgentlessStatus
	// ttl is how long a reporter's report counts without another: a
	// replica that died or gave its tenants up stops holding the merged
	// generation back.
	ttl time.Duration
}

func (r *agentlessRegistry) set(rep wire.AgentlessReport, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reports == nil {
		r.reports = map[string]AgentlessStatus{}
	}
	r.reports[rep.Reporter] = AgentlessStatus{Report: rep, ReportedAt: at}
}

func (r *agentlessRegistry) get(now time.Time) (AgentlessStatus, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ttl := r.ttl
	if ttl == 0 {
		ttl = DefaultAgentlessReportTTL
	}
	var live []AgentlessStatus
	for who, st := range r.reports {
		if len(r.reports) > 1 && now.Sub(st.ReportedAt) > ttl {
			delete(r.reports, who)
			continue
		}
		live = append(live, st)
	}
	return MergeAgentless(live)
}

// DefaultAgentlessReportTTL is how long a reporter's last report counts
// when others report: five of the cloud controller's default resyncs.
const DefaultAgentlessReportTTL = 5 * time.Minute

// MergeAgentless merges the reports of several agentless reporters into
// one: the generation is the oldest applied (an endpoint is realized once
// every reporter applied its rules), the epoch theirs when they agree (else
// none: every point waits), the endpoints' findings all of theirs, sorted
// by endpoint, and the time the oldest report's. False when there is none.
func MergeAgentless(reports []AgentlessStatus) (AgentlessStatus, bool) {
	if len(reports) == 0 {
		return AgentlessStatus{}, false
	}
	if len(reports) == 1 {
		return reports[0], true
	}
	out := AgentlessStatus{Report: wire.AgentlessReport{AppliedEpoch: reports[0].Report.AppliedEpoch,
		AppliedGeneration: reports[0].Report.AppliedGeneration}, ReportedAt: reports[0].ReportedAt}
	byName := map[string][]wire.Finding{}
	for _, st := range reports {
		rep := st.Report
		if rep.AppliedEpoch != out.Report.AppliedEpoch {
			out.Report.AppliedEpoch = ""
		}
		out.Report.AppliedGeneration = min(out.Report.AppliedGeneration, rep.AppliedGeneration)
		if st.ReportedAt.Before(out.ReportedAt) {
			out.ReportedAt = st.ReportedAt
		}
		for _, ep := range rep.Endpoints {
			byName[ep.Name] = append(byName[ep.Name], ep.Findings...)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out.Report.Endpoints = append(out.Report.Endpoints, wire.EndpointRealization{Name: name, Findings: byName[name]})
	}
	return out, true
}

// Agentless returns the last reports of the agentless consumers, merged
// (MergeAgentless), if any reported since the server started. Its
// endpoints must not be modified.
func (s *Server) Agentless() (AgentlessStatus, bool) { return s.agentless.get(time.Now()) }

// Findings returns what the agentless consumers last reported of one
// endpoint ("namespace/name"): the parts of its rules not enforced as
// written; nil when nothing (or nobody) reported it. They must not be
// modified.
func (s *Server) Findings(endpoint string) []wire.Finding {
	st, ok := s.Agentless()
	if !ok {
		return nil
	}
	if i := slices.IndexFunc(st.Report.Endpoints, func(e wire.EndpointRealization) bool { return e.Name == endpoint }); i >= 0 {
		return st.Report.Endpoints[i].Findings
	}
	return nil
}

func (s *Server) serveAgentlessReport(w http.ResponseWriter, r *http.Request) {
	id, _, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	if id.Kind != IdentityAgentless {
		writeError(w, http.StatusForbidden, "only the agentless consumer reports security groups")
		return
	}
	var rep wire.AgentlessReport
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20)).Decode(&rep); err != nil {
		writeError(w, http.StatusBadRequest, "decoding the agentless report: "+err.Error())
		return
	}
	s.agentless.set(rep, time.Now())
	result := "agentless"
	if len(rep.Endpoints) > 0 {
		result = "agentless_findings"
	}
	s.opts.Metrics.Reports.WithLabelValues(result).Inc()
	if rep.AppliedEpoch == s.hub.Epoch() {
		if at, ok := s.hub.PublishedAt(s.opts.AgentlessNode, rep.AppliedGeneration); ok {
			s.opts.Metrics.RealizationLag.Observe(time.Since(at).Seconds())
		}
	}
	if s.opts.OnAgentlessReport != nil {
		s.opts.OnAgentlessReport()
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(wire.ReportResponse{Epoch: s.hub.Epoch(), Generation: s.hub.Generation()})
}
