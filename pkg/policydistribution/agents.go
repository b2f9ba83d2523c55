package policydistribution

import (
	"cmp"
	"maps"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// AgentStatus is what the server knows of one VM agent.
type AgentStatus struct {
	VirtualMachine string `json:"virtualMachine"`
	// Connected is true while the agent has a watch stream open.
	Connected      bool      `json:"connected"`
	RemoteAddr     string    `json:"remoteAddr,omitempty"`
	ConnectedSince time.Time `json:"connectedSince,omitzero"`
	LastSeen       time.Time `json:"lastSeen,omitzero"`
	// Report is the agent's last report, and ReportedAt when it came.
	Report     *wire.Report `json:"report,omitempty"`
	ReportedAt time.Time    `json:"reportedAt,omitzero"`
	// SentGeneration is the generation of the last change written to the
	// agent, and Events the number of events written.
	SentGeneration uint64 `json:"sentGeneration"`
	Events         int64  `json:"events"`
	// ScopeGeneration is the generation of the newest change of the VM's
	// rules the server still holds (0 when none), and Behind is true when
	// the agent has not reported enforcing it.
	ScopeGeneration uint64 `json:"scopeGeneration"`
	Behind          bool   `json:"behind"`

	streams int
}

// agentRegistry holds the status of every agent that connected or
// reported since the server started, and tells onChange about changes
// worth writing to the VirtualMachine's status.
type agentRegistry struct {
	mu       sync.Mutex
	agents   map[types.NamespacedName]*AgentStatus
	onChange func(types.NamespacedName)
	now      func() time.Time
}

func newAgentRegistry(onChange func(types.NamespacedName)) *agentRegistry {
	if onChange == nil {
		onChange = func(types.NamespacedName) {}
	}
	return &agentRegistry{agents: map[types.NamespacedName]*AgentStatus{}, onChange: onChange, now: time.Now}
}

func (r *agentRegistry) get(vm types.NamespacedName) *AgentStatus {
	a := r.agents[vm]
	if a == nil {
		a = &AgentStatus{VirtualMachine: vm.String()}
		r.agents[vm] = a
	}
	return a
}

func (r *agentRegistry) connected(vm types.NamespacedName, remote string) {
	r.mu.Lock()
	a := r.get(vm)
	a.streams++
	first := !a.Connected
	a.Connected, a.RemoteAddr, a.LastSeen = true, remote, r.now()
	if first {
		a.ConnectedSince = a.LastSeen
	}
	r.mu.Unlock()
	if first {
		r.onChange(vm)
	}
}

func (r *agentRegistry) disconnected(vm types.NamespacedName) {
	r.mu.Lock()
	a := r.get(vm)
	a.streams--
	last := a.streams == 0
	a.LastSeen = r.now()
	if last {
		a.Connected = false
	}
	r.mu.Unlock()
	if last {
		r.onChange(vm)
	}
}

func (r *agentRegistry) sent(vm types.NamespacedName, ev *wire.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.get(vm)
	a.Events++
	a.LastSeen = r.now()
	if ev.Type != wire.EventBookmark {
		a.SentGeneration = ev.Generation
	}
}

// reported records a report and returns the previous one.
func (r *agentRegistry) reported(vm types.NamespacedName, rep *wire.Report) *wire.Report {
	r.mu.Lock()
	a := r.get(vm)
	prev := a.Report
	a.Report, a.ReportedAt, a.LastSeen = rep, r.now(), r.now()
	r.mu.Unlock()
	r.onChange(vm)
	return prev
}

// status returns a copy of one agent's status.
func (r *agentRegistry) status(vm types.NamespacedName) (AgentStatus, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.agents[vm]
	if !ok {
		return AgentStatus{}, false
	}
	return *a, true
}

// list returns copies of every agent's status, sorted by VM.
func (r *agentRegistry) list() []AgentStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := slices.SortedFunc(maps.Keys(r.agents), func(a, b types.NamespacedName) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	out := make([]AgentStatus, 0, len(keys))
	for _, k := range keys {
		out = append(out, *r.agents[k])
	}
	return out
}
