package consumer_test

import (
	"context"
	"fmt"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// A VM agent's side of the distribution: it follows its scope until ctx
// ends, reconnecting after failures and resuming from the last View held,
// and reports what it enforces.
func ExampleClient_Watch() {
	run := func(ctx context.Context, enforce func(*wire.View) error) error {
		c, err := consumer.New(consumer.Options{
			Server:    "https://policy-controller:8443",
			TokenFile: "/etc/antreaplus/vm-agent/token", // read at every connection
			CAFile:    "/etc/antreaplus/vm-agent/ca.crt",
		})
		if err != nil {
			return err
		}
		var last *wire.View // nil: from scratch; else e.g. the state file's
		return c.Watch(ctx, last, func(v *wire.View, _ *wire.Event) {
			rep := wire.Report{AgentVersion: "v1", AppliedEpoch: v.Epoch, AppliedGeneration: v.Generation, AppliedRules: v.RuleCount()}
			if err := enforce(v); err != nil { // every endpoint of the scope, every rule
				rep.ApplyError = err.Error()
			}
			resp, err := c.Report(ctx, rep)
			if consumer.IsUnauthorized(err) {
				fmt.Println("the token was revoked")
				return
			}
			fmt.Println(resp.VirtualMachine, resp.DNSServer)
		}, func(err error) {
			fmt.Println("connected:", err == nil)
		})
	}
	_ = run
}
