package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/policyview"
)

// policyFlags are the flags every policy command shares.
type policyFlags struct {
	*configFlags
	printFlags
	namespace string
	timeout   time.Duration
	// stats reads the PolicyStats too.
	stats bool
}

func newPolicyCommand(cfg *configFlags, out, errOut io.Writer) *cobra.Command {
	f := &policyFlags{configFlags: cfg}
	c := &cobra.Command{
		Use:   "policy",
		Short: "List the network policies of every member, federated or not, and show how far each is realised",
		Example: `  antreaplus policy list
  antreaplus policy status web-allow -n shop
  antreaplus policy stats -n shop`,
		Long: `The policy commands read every context of the kubeconfig (each a member; --context restricts
them): their FederatedNetworkPolicies (policy.antreaplus.io), Antrea NetworkPolicies and
ClusterNetworkPolicies (crd.antrea.io), with the status Antrea and the member controller wrote.
A member that cannot be read is reported, not fatal: a command fails only when no member
could be read.`,
	}
	addPrintFlags(c, c.PersistentFlags(), &f.printFlags, "")
	c.PersistentFlags().DurationVar(&f.timeout, "timeout", policyview.DefaultTimeout, "how long to wait for each member")
	c.AddCommand(policyList(f, out, errOut), policyStatus(f, out, errOut), policyStats(f, out, errOut))
	return c
}

// read reads the policies of the chosen contexts.
func (f *policyFlags) read(ctx context.Context, errOut io.Writer) ([]policyview.Snapshot, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	kc, err := f.load()
	if err != nil {
		return nil, err
	}
	clusters, err := f.chosen(kc)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(errOut, "reading the policies of %d context(s) of %s ...\n", len(clusters), strings.Join(kc.Paths, ":"))
	return policyview.Read(ctx, clusters, policyview.ReadOptions{Namespace: f.namespace, Timeout: f.timeout, Stats: f.stats}), nil
}

// noMemberRead is an error when no member could be read.
func noMemberRead(members []policyview.Member) error {
	for _, m := range members {
		if m.Readable {
			return nil
		}
	}
	return fmt.Errorf("none of the %d member(s) could be read: check that their API servers run and the kubeconfig's credentials", len(members))
}

// printMemberProblems writes a line per member that could not be read, or
// not wholly, or lacks CRDs.
func printMemberProblems(out io.Writer, members []policyview.Member) {
	for _, m := range members {
		switch {
		case !m.Readable:
			fmt.Fprintf(out, "%s: not read: %s\n", m.Context, strings.Join(m.Errors, "; "))
		case len(m.Errors) > 0:
			fmt.Fprintf(out, "%s: partly read: %s\n", m.Context, strings.Join(m.Errors, "; "))
		}
		if len(m.NotInstalled) > 0 {
			var kinds []string
			for _, k := range m.NotInstalled {
				kinds = append(kinds, fmt.Sprintf("%s (%s)", k, policyview.Group(k)))
			}
			fmt.Fprintf(out, "%s: CRDs not installed: %s\n", m.Context, strings.Join(kinds, ", "))
		}
	}
}

// memberName shows a member: its context, and its cluster ID when it has one.
func memberName(context, clusterID string) string {
	if clusterID == "" {
		return context
	}
	return fmt.Sprintf("%s (cluster %s)", context, clusterID)
}

func fraction(n, of int) string { return fmt.Sprintf("%d/%d", n, of) }
