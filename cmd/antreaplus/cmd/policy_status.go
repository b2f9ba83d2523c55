package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/policyview"
)

func policyStatus(f *policyFlags, out, errOut io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "status NAME [-n NS] [--context CTX]... [-o json]",
		Short: "Show every policy of a name in every member, in detail",
		Example: `  antreaplus policy status web-allow -n shop
  antreaplus policy status web-allow -n shop --context member-2 -o json`,
		Long: `status shows every policy named NAME in every member (FederatedNetworkPolicies, Antrea
NetworkPolicies and ClusterNetworkPolicies), and the Antrea NetworkPolicies derived from a
federated policy of that name: phase, enforcement points and conditions; for a federated
policy also its derived policy, its remote sources (what each resolved to, or waits for) and
its refused peers. It fails when no member has a policy of that name.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			snaps, err := f.read(ctx, errOut)
			if err != nil {
				return err
			}
			st := policyview.Status(snaps, args[0])
			if err := f.print(out, st, func(w io.Writer) error { return printPolicyStatus(w, st) }); err != nil {
				return err
			}
			if err := noMemberRead(st.Members); err != nil {
				return err
			}
			if len(st.Policies) == 0 {
				return fmt.Errorf("no policy named %s%s in the member(s) read", args[0], inNamespace(f.namespace))
			}
			return nil
		},
	}
	c.Flags().StringVarP(&f.namespace, "namespace", "n", "", "look in this namespace only (and among the cluster-wide policies)")
	return c
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}

// printPolicyStatus writes a block per policy, then the members' problems.
func printPolicyStatus(out io.Writer, st policyview.PolicyStatus) error {
	for i, d := range st.Policies {
		if i > 0 {
			fmt.Fprintln(out)
		}
		if err := printDetail(out, d); err != nil {
			return err
		}
	}
	if len(st.Policies) == 0 {
		fmt.Fprintf(out, "No policy named %s.\n", st.Name)
	}
	var problems strings.Builder
	printMemberProblems(&problems, st.Members)
	if problems.Len() > 0 {
		fmt.Fprintf(out, "\n%s", problems.String())
	}
	return nil
}

func printDetail(out io.Writer, d policyview.Detail) error {
	fmt.Fprintf(out, "%s: %s %s\n", memberName(d.Context, d.ClusterID), d.Kind, qualifiedName(d.Row))
	fmt.Fprintf(out, "  Tier %s, priority %s\n", orDash(d.Tier), strconv.FormatFloat(d.Priority, 'g', -1, 64))
	fmt.Fprintf(out, "  Phase %s (generation %d, status of generation %d%s)\n", orDash(d.Phase), d.Generation, d.ObservedGeneration, staleNote(d.Row))
	if d.DerivedFrom != "" {
		fmt.Fprintf(out, "  Derived from the FederatedNetworkPolicy %s\n", d.DerivedFrom)
	}
	if !d.Federated {
		fmt.Fprintf(out, "  Nodes %s realized\n", fraction(d.Realized, d.Desired))
		return printConditions(out, d.Conditions)
	}
	fmt.Fprintf(out, "  Derived policy %s\n", orDash(d.DerivedPolicy))
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "  Enforcement points: %s realized\n", fraction(d.Realized, d.Desired))
	if len(d.EnforcementPoints) > 0 {
		fmt.Fprintln(w, "    NAME\tREALIZED\tREASON\tMESSAGE")
	}
	for _, e := range d.EnforcementPoints {
		fmt.Fprintf(w, "    %s\t%s\t%s\t%s\n", e.Name, yesNo(e.Realized), orDash(e.Reason), orDash(e.Message))
	}
	fmt.Fprintf(w, "  Remote sources: %s resolved\n", remoteSources(d.Row))
	if len(d.RemoteSources) > 0 {
		fmt.Fprintln(w, "    RULE\tKIND\tNAME\tRESOLVED\tCLUSTERS\tADDRESSES\tMESSAGE")
	}
	for _, s := range d.RemoteSources {
		fmt.Fprintf(w, "    %s\t%s\t%s\t%s\t%s\t%d\t%s\n", s.Rule, s.Kind, orDash(s.Name), yesNo(s.Resolved),
			orDash(strings.Join(s.Clusters, ",")), s.Addresses, orDash(s.Message))
	}
	for _, s := range d.RemoteSources {
		for _, line := range s.NotExportedHere {
			fmt.Fprintf(w, "    %s %s: not exported to this member by %s\n", s.Rule, orDash(s.Name), line)
		}
	}
	fmt.Fprintf(w, "  Refused peers: %d\n", len(d.RefusedPeers))
	if len(d.RefusedPeers) > 0 {
		fmt.Fprintln(w, "    RULE\tPEER\tREASON\tMESSAGE")
	}
	for _, p := range d.RefusedPeers {
		fmt.Fprintf(w, "    %s\t%d\t%s\t%s\n", p.Rule, p.Peer, p.Reason, p.Message)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return printConditions(out, d.Conditions)
}

func printConditions(out io.Writer, conds []policyview.Condition) error {
	if len(conds) == 0 {
		fmt.Fprintln(out, "  Conditions: none")
		return nil
	}
	fmt.Fprintln(out, "  Conditions:")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "    TYPE\tSTATUS\tREASON\tMESSAGE")
	for _, c := range conds {
		fmt.Fprintf(w, "    %s\t%s\t%s\t%s\n", c.Type, c.Status, orDash(c.Reason), orDash(c.Message))
	}
	return w.Flush()
}

func qualifiedName(r policyview.Row) string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

func staleNote(r policyview.Row) string {
	if r.Stale {
		return ": stale"
	}
	return ""
}
