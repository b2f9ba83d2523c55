package cmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/policyview"
)

func policyStats(f *policyFlags, out, errOut io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "stats [NAME] [-n NS] [--context CTX]... [-o json]",
		Short: "Show the traffic each policy's rules allowed and dropped, summed over every member",
		Example: `  antreaplus policy stats
  antreaplus policy stats db-ingress -n shop
  antreaplus policy stats db-ingress -n shop -o json`,
		Long: `stats reads the PolicyStats (policy.antreaplus.io) of every member: what each rule of each
policy decided at the enforcement points that count, the VM agents' nftables counters, which
the policy controller sums per rule. A FederatedNetworkPolicy is shown once, its derived
policies' counts summed over every member. A rule counts the packets it decides: those of
connections not established yet, so an allowed TCP connection counts one packet (its SYN) and
a dropped one each retry. Security groups and Antrea-enforced Pods count nothing here
(docs/trace.md). With NAME it fails when no member counted a policy of that name.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			f.stats = true
			snaps, err := f.read(ctx, errOut)
			if err != nil {
				return err
			}
			opts := policyview.StatsOptions{Namespace: f.namespace}
			if len(args) == 1 {
				opts.Name = args[0]
			}
			v := policyview.Stats(snaps, opts)
			if err := f.print(out, v, func(w io.Writer) error { return printStats(w, v) }); err != nil {
				return err
			}
			if err := noMemberRead(v.Members); err != nil {
				return err
			}
			if opts.Name != "" && len(v.Policies) == 0 {
				return fmt.Errorf("no member counted traffic of a policy named %s%s: no VM agent enforces it, or none reported yet", opts.Name, inNamespace(f.namespace))
			}
			return nil
		},
	}
	c.Flags().StringVarP(&f.namespace, "namespace", "n", "", "show this namespace's policies only (and the cluster-wide ones)")
	return c
}

// printStats writes a block per policy: its total, then a line per rule.
func printStats(out io.Writer, v policyview.StatsView) error {
	for i, p := range v.Policies {
		if i > 0 {
			fmt.Fprintln(out)
		}
		var members []string
		for _, m := range p.Members {
			members = append(members, m.Context)
		}
		fmt.Fprintf(out, "%s %s: %d packets (%d dropped), %d bytes, at %d enforcement point(s) in %s\n", p.Kind,
			qualifiedName(policyview.Row{Namespace: p.Namespace, Name: p.Name}), p.Traffic.Packets, p.Traffic.DroppedPackets,
			p.Traffic.Bytes, p.Points, strings.Join(members, ", "))
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "  RULE\tACTION\tPACKETS\tDROPPED\tBYTES")
		for _, r := range p.Rules {
			fmt.Fprintf(w, "  %s\t%s\t%d\t%d\t%d\n", policyview.RuleName(r), r.Action, r.Traffic.Packets, r.Traffic.DroppedPackets, r.Traffic.Bytes)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if len(v.Policies) == 0 {
		fmt.Fprintln(out, "No policy counted traffic.")
	}
	var problems strings.Builder
	printMemberProblems(&problems, v.Members)
	if problems.Len() > 0 {
		fmt.Fprintf(out, "\n%s", problems.String())
	}
	return nil
}
