// Package wire defines what the policy distribution server and its clients
// (VM agents, and the cloud controller for agentless VMs) exchange: watch
// Events that carry compiled rules per enforcement point, agent Reports,
// and the View a client builds from the events.
//
// Rules are named by their content (RuleID), so that an Update carries the
// new order of an endpoint's rules but only the bodies of the rules that
// are new to it: changing one rule of a thousand sends one rule.
//
// # Usage
//
//	var view *wire.View // nil: nothing yet; the first event is a Sync
//	for ev := range events {
//		next, err := view.Apply(&ev)
//		if errors.Is(err, wire.ErrResync) {
//			// watch again without epoch and generation
//		}
//		view = next
//		for _, name := range view.Names() {
//			rules := view.Endpoints[name].RuleList() // in enforcement order
//			_ = rules
//		}
//	}
//
// Server side:
//
//	full := wire.NewEndpoint(compiled, addresses)
//	delta := full.Delta(previous) // what an Update carries
package wire
