package policydistribution

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// AgentlessStatus is the last report of the agentless consumer.
type AgentlessStatus struct {
	Report     wire.AgentlessReport `json:"report"`
	ReportedAt time.Time            `json:"reportedAt"`
}

// agentlessRegistry holds the last AgentlessReport.
type agentlessRegistry struct {
	mu     sync.Mutex
	status *AgentlessStatus
}

func (r *agentlessRegistry) set(rep wire.AgentlessReport, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = &AgentlessStatus{Report: rep, ReportedAt: at}
}

func (r *agentlessRegistry) get() (AgentlessStatus, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == nil {
		return AgentlessStatus{}, false
	}
	return *r.status, true
}

// Agentless returns the last report of the agentless consumer, if it
// reported since the server started. Its endpoints must not be modified.
func (s *Server) Agentless() (AgentlessStatus, bool) { return s.agentless.get() }

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
