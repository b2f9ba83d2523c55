package cmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/federation/membership"
)

func federationStatus(f *federationFlags, out, errOut io.Writer) *cobra.Command {
	var p printFlags
	c := &cobra.Command{
		Use:   "status [-o json|yaml]",
		Short: "Show the members, supervisors, the leader of each member, health and problems",
		Example: `  antreaplus federation status
  # look for the supervisors among two contexts only
  antreaplus federation status --context hub-1 --context hub-2
  antreaplus federation status -o json
  antreaplus federation status --federation-id acme --kubeconfig ~/.kube/acme`,
		Long: `status reads the registry of every supervisor the kubeconfig reaches, merges them per member
(the freshest report wins) and, for members whose context is at hand, reads the leader
Lease in the member itself. Every problem says what to do. Supervisors are looked for among
the contexts --context names (repeatable), else among every context of the kubeconfig.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			if err := p.validate(); err != nil {
				return err
			}
			kc, err := f.load()
			if err != nil {
				return err
			}
			d, err := f.discoverChosen(ctx, kc, errOut)
			if err != nil {
				return err
			}
			supervisors := d.Supervisors
			for _, m := range d.Missing {
				if c, err := kc.Cluster(m.Context); err == nil && m.Context != "" {
					supervisors = append(supervisors, c) // reported as not answering
				}
			}
			st, err := membership.Status(ctx, supervisors, d.Members)
			if err != nil {
				return err
			}
			return p.print(out, st, func(w io.Writer) error { return printStatus(w, st, time.Now()) })
		},
	}
	addPrintFlags(c, c.Flags(), &p, "")
	c.Flags().StringVar(&f.federationID, "federation-id", "", "federation to show (default: the only one whose supervisors the kubeconfig reaches)")
	return c
}

// printStatus writes the status as tables: members, supervisors, problems.
func printStatus(out io.Writer, st *membership.FederationStatus, now time.Time) error {
	fmt.Fprintf(out, "Federation %s\n\n", st.FederationID)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "CLUSTER ID\tSUPERVISOR\tLEADER\tTERM\tLEADING FOR\tREADY\tREACHABLE\tLEASE RENEWED\tPROBLEM")
	for _, m := range st.Members {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.ClusterID, yesNo(m.Supervisor), orDash(m.Leader),
			term(m), leadingFor(m, now), yesNo(m.Ready), reachable(m), renewed(m, now), firstProblem(m.Problems))
	}
	fmt.Fprintln(w)
	refusing := false
	for _, m := range st.Members {
		if m.Refuses != "" {
			if !refusing {
				fmt.Fprintln(w, "MEMBER\tREFUSES IMPORTS FROM")
				refusing = true
			}
			fmt.Fprintf(w, "%s\t%s\n", m.ClusterID, m.Refuses)
		}
	}
	if refusing {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "SUPERVISOR\tCONTEXT\tSERVER\tANSWERED\tREGISTRY")
	for _, s := range st.Supervisors {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d members\n", orDash(s.ClusterID), s.Context, s.Server, yesNo(s.Reachable), s.Members)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(st.Problems) == 0 {
		fmt.Fprintln(out, "\nNo problems.")
		return nil
	}
	fmt.Fprintln(out, "\nProblems:")
	for _, p := range st.Problems {
		fmt.Fprintf(out, "  - %s\n", p)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// reachable is "-" until a federation manager has probed the member.
func reachable(m membership.MemberStatus) string {
	if m.LastProbeTime == nil {
		return "-"
	}
	return yesNo(m.Reachable)
}

func renewed(m membership.MemberStatus, now time.Time) string {
	if m.LeaseRenewTime == nil {
		return "-"
	}
	return now.Sub(m.LeaseRenewTime.Time).Round(time.Second).String() + " ago"
}

// term is the leader Lease's leaseTransitions: the number of leaders the
// member has had; a term that grows while every supervisor runs shows
// spurious changes of leader.
func term(m membership.MemberStatus) string {
	if m.LeaderTerm == 0 {
		return "-"
	}
	return fmt.Sprint(m.LeaderTerm)
}

// leadingFor is how long the current leader has led the member.
func leadingFor(m membership.MemberStatus, now time.Time) string {
	if m.Leader == "" || m.LeaderSince == nil {
		return "-"
	}
	return now.Sub(m.LeaderSince.Time).Round(time.Second).String()
}

// firstProblem is the member's first problem, short enough for a table cell.
func firstProblem(problems []string) string {
	if len(problems) == 0 {
		return "-"
	}
	p, _, _ := strings.Cut(problems[0], ":")
	if more := len(problems) - 1; more > 0 {
		p += fmt.Sprintf(" (+%d more)", more)
	}
	return p
}
