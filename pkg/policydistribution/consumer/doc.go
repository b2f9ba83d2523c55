// Package consumer is the client side of the policy distribution: a VM
// agent, or the cloud controller for agentless VMs, watches the rules of
// its scope over HTTPS with a bearer token, resuming after every
// disconnection from the last generation it received, and (agents) reports
// what it enforces.
//
// # Usage
//
//	c, err := consumer.New(consumer.Options{
//		Server:    "https://policy-controller:8443",
//		TokenFile: "/etc/antreaplus/token",
//		CAFile:    "/etc/antreaplus/ca.crt",
//	})
//	// Blocks until ctx ends; view is the last View held (nil: none).
//	err = c.Watch(ctx, view, func(v *wire.View, ev *wire.Event) {
//		enforce(v) // every endpoint of the scope, every rule
//	}, nil)
//	resp, err := c.Report(ctx, wire.Report{AgentVersion: "v1", AppliedGeneration: v.Generation})
package consumer
