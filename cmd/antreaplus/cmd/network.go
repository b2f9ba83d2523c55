package cmd

import (
	"io"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/networks/networklist"
)

func newNetworkCommand(f *configFlags, out, errOut io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:     "network",
		Short:   "Show a member's networks: its VPCs, VNets and cluster, their ranges and what is flat-connected (docs/networks.md)",
		Example: `  antreaplus network list --context member-1`,
		Long: `A Network is a routing domain of a member: an imported VPC or VNet (written by the cloud
controller), its cluster, a site. Its flat connections are the networks whose private
addresses reach it without NAT; a federated policy uses a remote peer's private addresses only
there, else its public and NAT addresses. The member controller judges them together (VALID).`,
	}
	c.AddCommand(networkList(f, out, errOut))
	return c
}

func networkList(f *configFlags, out, errOut io.Writer) *cobra.Command {
	var p printFlags
	c := &cobra.Command{
		Use:   "list [-o table|json|yaml]",
		Short: "List the member's Networks: kind, ranges, flat connections and verdict",
		Example: `  antreaplus network list --context member-2
  antreaplus network list --context member-1 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			return listCurrent(ctx, f, &p, out, errOut, "Networks", networklist.List, networklist.PrintTable)
		},
	}
	addPrintFlags(c, c.Flags(), &p, "table")
	return c
}
