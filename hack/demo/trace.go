package main

import (
	"regexp"
	"strings"
	"time"
)

// traceSection: a cross-member connection dropped, the trace naming the
// rule that dropped it (computed, then live: what the agents' kernels
// saw), the federated policy fixed, the trace and the connection allowed,
// and the rules' counters.
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
	d.printf("  the same flow sent for real (--live): each VM agent's nftables tracing names the rule that decided the packet\n")
	if err := d.traced(append(args, "--live"), "DROPPED", "observed: Dropped by AntreaNetworkPolicy:cloud-demo/fnp-build-2-from-aws", "(agrees)"); err != nil {
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
	if err := d.traced(args, "ALLOWED", "Allow, derived from FederatedNetworkPolicy cloud-demo/build-2-from-aws"); err != nil {
		return err
	}
	d.printf("  what each rule decided, counted by the VM agent's nftables and summed by member-2's policy controller:\n")
	return d.counted([]string{"policy", "stats", "build-2-from-aws", "-n", "cloud-demo"},
		regexp.MustCompile(`Allow\s+[1-9]`), regexp.MustCompile(`Drop\s+[1-9]`))
}

// traced runs antreaplus trace until its output holds every want, and
// shows it.
func (d *demo) traced(args []string, want ...string) error {
	return d.shown(args, "the trace says "+strings.Join(want, ", "), 45*time.Second, func(out string) bool {
		for _, w := range want {
			if !strings.Contains(out, w) {
				return false
			}
		}
		return true
	})
}

// counted runs antreaplus policy stats until its output matches every
// want (the counts reach it within the agents' report interval and the
// controller's), and shows it.
func (d *demo) counted(args []string, want ...*regexp.Regexp) error {
	return d.shown(args, "the counters", 60*time.Second, func(out string) bool {
		for _, w := range want {
			if !w.MatchString(out) {
				return false
			}
		}
		return true
	})
}

// shown runs antreaplus with args until ok accepts its output, and shows it.
func (d *demo) shown(args []string, what string, timeout time.Duration, ok func(string) bool) error {
	var out string
	err := d.wait(what, timeout, func() error {
		var err error
		if out, err = d.ap(args...); err != nil {
			return err
		}
		if !ok(out) {
			return errNot("%s", out)
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
