package main

import (
	"strings"
	"time"
)

// traceSection: a cross-member connection dropped, the trace naming the
// rule that dropped it, the federated policy fixed, the trace and the
// connection allowed.
func (d *demo) traceSection() error {
	const from, to = "dev-build-3", "azure-dev-build-2:8080"
	args := []string{"trace", "--from", "member-1:vm/dev-build-3", "--to", "member-2:vm/dev-build-2", "--port", "8080"}
	d.printf("  a real TCP connection from dev-build-3 (AWS, member-1) to azure-dev-build-2 (Azure, member-2):\n")
	if err := d.waitProbe(from, to, "blocked"); err != nil {
		return err
	}
	if err := d.probes(from, to); err != nil {
		return err
	}
	if err := d.traced(args, "DROPPED", "Drop, derived from FederatedNetworkPolicy cloud-demo/build-2-from-aws"); err != nil {
		return err
	}
	d.printf("  the federated policy fixed: dev-build-3 joins the allowed peers\n")
	if err := d.apply("member-2", "build-2-from-aws-fixed.yaml", true); err != nil {
		return err
	}
	if err := d.waitProbe(from, to, "connected"); err != nil {
		return err
	}
	if err := d.probes(from, to); err != nil {
		return err
	}
	return d.traced(args, "ALLOWED", "Allow, derived from FederatedNetworkPolicy cloud-demo/build-2-from-aws")
}

// traced runs antreaplus trace until its output holds every want, and
// shows it.
func (d *demo) traced(args []string, want ...string) error {
	var out string
	err := d.wait("the trace says "+strings.Join(want, ", "), 45*time.Second, func() error {
		var err error
		if out, err = d.ap(args...); err != nil {
			return err
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				return errNot("%s", out)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.printf("  antreaplus %s\n", strings.Join(args, " "))
	d.indent("  ", out)
	return nil
}
