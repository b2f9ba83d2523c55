package policystatus_test

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/feeder"
	"antreaplus.io/antreaplus/pkg/policydistribution/policystatus"
)

// The writer in the policy controller's manager: it reads the hub, the
// server's reports and the compiler's verdicts, and is told when an agent
// or the agentless consumer reported (package controlplane wires it).
func ExampleWriter() {
	setup := func(mgr ctrl.Manager, hub *policydistribution.Hub, tokens *policydistribution.Tokens, f *feeder.Feeder) error {
		w := &policystatus.Writer{Client: mgr.GetClient(), Hub: hub, Compiler: f, AgentlessNode: "antreaplus-cloud-controller"}
		server := policydistribution.NewServer(hub, policydistribution.ServerOptions{Authenticator: tokens,
			OnAgentlessReport: w.Changed})
		w.Reports = server
		return mgr.Add(w)
	}
	_ = setup
}

// The Enforcers condition's message: each enforcer with the state of its
// worst point; the member controller reads it back for a federated
// policy's enforcement points.
func ExampleFormatEnforcers() {
	points := []policystatus.Point{
		{Endpoint: "shop/nic-a", Enforcer: "agent shop/vm-a", State: policystatus.StateRealized},
		{Endpoint: "shop/nic-b", Enforcer: "agentless", State: policystatus.StateRealized},
		{Endpoint: "shop/nic-c", Enforcer: "agentless", State: policystatus.StatePending, Reason: policystatus.ReasonAgentlessBehind},
	}
	msg := policystatus.FormatEnforcers(policystatus.Enforcers(points))
	fmt.Println(msg)
	for _, e := range policystatus.ParseEnforcers(msg) {
		fmt.Println(e.Name, e.State, e.Reason)
	}
	// Output:
	// agent shop/vm-a=Realized; agentless=Pending:AgentlessBehind
	// agent shop/vm-a Realized Realized
	// agentless Pending AgentlessBehind
}
