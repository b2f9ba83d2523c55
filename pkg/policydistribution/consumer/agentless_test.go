package consumer_test

import (
	"testing"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

func TestAgentlessReport(t *testing.T) {
	e := newEnv(t)
	rep := wire.AgentlessReport{AppliedEpoch: e.Hub.Epoch(), AppliedGeneration: e.Hub.Generation(),
		Endpoints: []wire.EndpointRealization{{Name: "a/svc", Findings: []wire.Finding{{Severity: wire.SeverityUnrealized,
			Reason: "NotANetworkInterface", Message: "cloud-native services are not enforced agentless"}}}}}
	if err := e.client(t, "agentless").ReportAgentless(t.Context(), rep); err != nil {
		t.Fatalf("agentless report: %v", err)
	}
	got, ok := e.Server.Server.Agentless()
	if !ok || got.Report.AppliedGeneration != rep.AppliedGeneration || len(got.Report.Endpoints) != 1 ||
		got.Report.Endpoints[0].Findings[0].Reason != "NotANetworkInterface" {
		t.Fatalf("server holds %+v, %v", got, ok)
	}
	// An agent may not report for the agentless consumer.
	if err := e.client(t, "vm-a").ReportAgentless(t.Context(), rep); !consumer.IsUnauthorized(err) {
		t.Fatalf("agent's agentless report: %v; want forbidden", err)
	}
}
