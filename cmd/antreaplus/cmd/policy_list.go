package cmd

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/policyview"
)

func policyList(f *policyFlags, out, errOut io.Writer) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "list [-o json] [--context CTX]... [-n NS | -A]",
		Short: "List every policy of every member: kind, tier, priority, federated or derived, realisation",
		Example: `  antreaplus policy list
  antreaplus policy list -n shop --context member-1 --context member-2
  antreaplus policy list -o yaml`,
		Long: `list shows one row per policy of every member: FederatedNetworkPolicies, Antrea NetworkPolicies
and ClusterNetworkPolicies. REALIZED counts enforcement points (Nodes for an Antrea policy, the
status's enforcement points for a federated one); REMOTE the remote sources resolved and
REFUSED the refused peers of a federated policy; STALE says the status describes an older
generation. An Antrea NetworkPolicy the member controller derived from a federated policy is
shown "from <name>", right after it, and counted once with it. ClusterNetworkPolicies are
shown whatever -n says: they may apply to any namespace.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			if all && f.namespace != "" {
				return fmt.Errorf("give either -n NAMESPACE or -A (every namespace, the default), not both")
			}
			snaps, err := f.read(ctx, errOut)
			if err != nil {
				return err
			}
			l := policyview.List(snaps)
			if err := f.print(out, l, func(w io.Writer) error { return printListing(w, l) }); err != nil {
				return err
			}
			return noMemberRead(l.Members)
		},
	}
	c.Flags().StringVarP(&f.namespace, "namespace", "n", "", "show the policies of this namespace only (and the cluster-wide ones)")
	c.Flags().BoolVarP(&all, "all-namespaces", "A", false, "show the policies of every namespace (the default)")
	return c
}

// printListing writes the policies as a table, the members' problems and a summary.
func printListing(out io.Writer, l policyview.Listing) error {
	if len(l.Policies) == 0 {
		fmt.Fprintln(out, "No policies.")
	} else {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "CONTEXT\tCLUSTER ID\tKIND\tNAMESPACE\tNAME\tTIER\tPRIORITY\tFEDERATED\tPHASE\tREALIZED\tREMOTE\tREFUSED\tSTALE")
		for _, r := range l.Policies {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Context, orDash(r.ClusterID), r.Kind,
				orDash(r.Namespace), r.Name, orDash(r.Tier), strconv.FormatFloat(r.Priority, 'g', -1, 64), federated(r),
				orDash(r.Phase), realized(r), remoteSources(r), refusedPeers(r), yesNo(r.Stale))
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(out)
	printMemberProblems(out, l.Members)
	fmt.Fprintln(out, summaryLine(l.Summary))
	return nil
}

// federated is "yes" for a federated policy, "from <name>" for one derived from it.
func federated(r policyview.Row) string {
	switch {
	case r.Federated:
		return "yes"
	case r.DerivedFrom != "":
		return "from " + r.DerivedFrom
	}
	return "no"
}

// realized is "realized/desired", "-" when there is no status to tell.
func realized(r policyview.Row) string {
	if r.Desired == 0 && r.Phase == "" {
		return "-"
	}
	return fraction(r.Realized, r.Desired)
}

func remoteSources(r policyview.Row) string {
	if r.Remote == nil {
		return "-"
	}
	return fraction(r.Remote.SourcesResolved, r.Remote.SourcesTotal)
}

func refusedPeers(r policyview.Row) string {
	if r.Remote == nil {
		return "-"
	}
	return strconv.Itoa(r.Remote.RefusedPeers)
}

func summaryLine(s policyview.Summary) string {
	line := fmt.Sprintf("%d policies in %d of %d member(s): %d federated, %d stale, %d not realized", s.Policies,
		s.MembersRead, s.Members, s.Federated, s.Stale, s.NotRealized)
	if s.Derived > 0 {
		line += fmt.Sprintf(" (%d derived Antrea policies, not counted again where their federated policy is listed)", s.Derived)
	}
	if s.MembersUnreadable > 0 {
		line += fmt.Sprintf("; %d member(s) could not be read", s.MembersUnreadable)
	}
	return line + "."
}
