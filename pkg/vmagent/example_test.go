package vmagent_test

import (
	"context"
	"fmt"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/vmagent"
)

// The agent of a VM, as cmd/vm-agent runs it: its rules from the policy
// controller enforced in nftables until ctx ends (they stay in force
// after), DNS forwarding on; then, on uninstall, the resolver file put
// back.
func ExampleNew() {
	const state = "/var/lib/antreaplus/vm-agent/state.json"
	run := func(ctx context.Context) error {
		client, err := consumer.New(consumer.Options{Server: "https://policy-controller:8443",
			TokenFile: "/etc/antreaplus/vm-agent/token", CAFile: "/etc/antreaplus/vm-agent/ca.crt"})
		if err != nil {
			return err
		}
		agent, err := vmagent.New(vmagent.Options{
			Client:    client,
			Firewall:  &vmagent.NFTables{Table: vmagent.DefaultTable},
			StatePath: state,
			Version:   "v0.1.0",
			DNS:       &vmagent.DNSOptions{ResolvConf: "/etc/resolv.conf"}, // nil: DNS off
		})
		if err != nil {
			return err
		}
		return agent.Run(ctx)
	}
	uninstall := func() error {
		return vmagent.UninstallDNS(state, "/etc/resolv.conf")
	}
	_, _ = run, uninstall
}

// The firewall alone (root): a View's rules as one nftables table,
// replaced in one atomic batch.
func ExampleNFTables_Apply() {
	apply := func(view *wire.View) error {
		fw := &vmagent.NFTables{Table: vmagent.DefaultTable}
		res, err := fw.Apply(view)
		if err != nil {
			return err
		}
		fmt.Printf("%+v\n", res)
		return nil
	}
	_ = apply
}
