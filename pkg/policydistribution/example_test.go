package policydistribution_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// endpoint is shop/db's full state with n rules (a Drop from each of n
// addresses), at generation gen.
func endpoint(n int, gen uint64) *wire.Endpoint {
	er := policyrules.EndpointRules{Endpoint: "shop/db", ExternalNode: "vm-db", Hash: fmt.Sprint("h", gen), Generation: gen}
	for i := range n {
		er.Rules = append(er.Rules, policyrules.CompiledRule{Direction: policyrules.DirectionIngress,
			Action: policyrules.ActionDrop, Priority: policyrules.Priority{RuleIndex: int32(i)}, Tier: policyrules.TierApplication,
			Peers: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(i + 1)}), 32)}})
	}
	ep := wire.NewEndpoint(er, []netip.Addr{netip.MustParseAddr("10.0.0.7")})
	return &ep
}

// An in-process consumer of the hub (the Go API, as the HTTPS server and
// tests use it): a Sync first, then one Update per change of its scope,
// pulled at its own pace.
func ExampleHub_Watch() {
	hub := policydistribution.NewHub()
	hub.Publish([]policydistribution.Update{{Endpoint: "shop/db", Node: "vm-db", Rules: endpoint(1, 1)}})
	hub.SetReady() // after the first complete compilation

	w, _, err := hub.Watch(policydistribution.Scope{Namespace: "shop", Node: "vm-db"}, "", 0) // no epoch: from scratch
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Stop()
	var view *wire.View
	pull := func() {
		<-w.Wake()
		for _, ev := range w.Next() {
			view, err = view.Apply(&ev)
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println(ev.Type, "->", view.RuleCount(), "rules")
		}
	}
	pull()
	hub.Publish([]policydistribution.Update{{Endpoint: "shop/db", Node: "vm-db", Rules: endpoint(2, 2)}})
	pull()
	// Output:
	// Sync -> 1 rules
	// Update -> 2 rules
}

// The HTTPS watch API: every request is authenticated by a bearer token
// (Tokens, fed from the agents' Secrets by package agenttoken), and each
// consumer gets its own scope only. Package controlplane wires all of this
// into the policy controller.
func ExampleNewServer() {
	hub := policydistribution.NewHub()
	tokens := policydistribution.NewTokens("antreaplus-system")
	server := policydistribution.NewServer(hub, policydistribution.ServerOptions{
		Authenticator: tokens, AgentlessNode: "antreaplus-cloud-controller", Heartbeat: 10 * time.Second})
	srv := &http.Server{Addr: ":8443", Handler: server.Handler(), ReadHeaderTimeout: 10 * time.Second}
	serve := func() error { return srv.ListenAndServeTLS("tls.crt", "tls.key") }
	_ = serve
}
