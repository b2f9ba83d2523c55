package policydistribution

import (
	"reflect"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

func TestMergeAgentless(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	finding := func(reason string) wire.Finding {
		return wire.Finding{Reason: reason, Severity: wire.SeverityUnrealized}
	}
	st := func(reporter, epoch string, gen uint64, at time.Time, eps ...wire.EndpointRealization) AgentlessStatus {
		return AgentlessStatus{Report: wire.AgentlessReport{Reporter: reporter, AppliedEpoch: epoch, AppliedGeneration: gen, Endpoints: eps}, ReportedAt: at}
	}
	ep := func(name string, f ...wire.Finding) wire.EndpointRealization {
		return wire.EndpointRealization{Name: name, Findings: f}
	}
	tests := []struct {
		name    string
		reports []AgentlessStatus
		want    AgentlessStatus
		ok      bool
	}{
		{name: "none", ok: false},
		{name: "one reporter: its report as it is", reports: []AgentlessStatus{st("shared/a", "e1", 7, t0, ep("ns/x", finding("R")))},
			want: st("shared/a", "e1", 7, t0, ep("ns/x", finding("R"))), ok: true},
		{name: "two replicas: the oldest generation, every finding, sorted, the oldest time",
			reports: []AgentlessStatus{
				st("shared/b", "e1", 9, t0.Add(time.Second), ep("t2/y", finding("B"))),
				st("shared/a", "e1", 7, t0, ep("t1/x", finding("A")), ep("t2/y", finding("A2"))),
			},
			want: st("", "e1", 7, t0, ep("t1/x", finding("A")), ep("t2/y", finding("B"), finding("A2"))), ok: true},
		{name: "epochs differ: no epoch, every point waits",
			reports: []AgentlessStatus{st("a/1", "e1", 3, t0), st("b/1", "e2", 3, t0)},
			want:    st("", "", 3, t0), ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := MergeAgentless(tt.reports)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("MergeAgentless = %+v, %v\nwant %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestAgentlessRegistryForgetsSilentReporters: a replica that stopped
// reporting (died, gave its tenants up) stops holding the generation back
// once its report is older than the TTL; a lone reporter is never dropped.
func TestAgentlessRegistryForgetsSilentReporters(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	r := &agentlessRegistry{ttl: time.Minute}
	r.set(wire.AgentlessReport{Reporter: "shared/a", AppliedEpoch: "e", AppliedGeneration: 3}, t0)
	if got, ok := r.get(t0.Add(time.Hour)); !ok || got.Report.AppliedGeneration != 3 {
		t.Fatalf("lone reporter: %+v, %v", got, ok)
	}
	r.set(wire.AgentlessReport{Reporter: "shared/b", AppliedEpoch: "e", AppliedGeneration: 5}, t0.Add(time.Hour))
	if got, _ := r.get(t0.Add(time.Hour + time.Second)); got.Report.AppliedGeneration != 5 {
		t.Errorf("after a's report expired: generation %d, want b's 5", got.Report.AppliedGeneration)
	}
	r.set(wire.AgentlessReport{Reporter: "shared/a", AppliedEpoch: "e", AppliedGeneration: 4}, t0.Add(time.Hour+2*time.Second))
	if got, _ := r.get(t0.Add(time.Hour + 3*time.Second)); got.Report.AppliedGeneration != 4 {
		t.Errorf("both current: generation %d, want the oldest 4", got.Report.AppliedGeneration)
	}
}
