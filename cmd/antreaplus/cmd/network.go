package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/networks/networklist"
)

func newNetworkCommand(out, errOut io.Writer) *cobra.Command {
	f := &contextFlags{}
	c := &cobra.Command{
		Use:   "network",
		Short: "Show a member's networks: its VPCs, VNets and cluster, their ranges and what is flat-connected (docs/networks.md)",
		Long: `A Network is a routing domain of a member: an imported VPC or VNet (written by the cloud
controller), its cluster, a site. Its flat connections are the networks whose private
addresses reach it without NAT; a federated policy uses a remote peer's private addresses only
there, else its public and NAT addresses. The member controller judges them together (VALID).`,
	}
	c.PersistentFlags().StringVar(&f.kubeconfig, "kubeconfig", defaultKubeconfig(),
		"kubeconfig file(s), ':'-separated; defaults to $KUBECONFIG, else the sandbox's kubeconfig if there is one, else ~/.kube/config")
	c.PersistentFlags().StringVar(&f.context, "context", "", "kubeconfig context of the cluster (default: the kubeconfig's current context)")
	c.AddCommand(networkList(f, out, errOut))
	return c
}

func networkList(f *contextFlags, out, errOut io.Writer) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "list [-o table|json]",
		Short: "List the member's Networks: kind, ranges, flat connections and verdict",
		Example: `  antreaplus network list --context member-2
  antreaplus network list --context member-1 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			if output != "table" && output != "json" {
				return fmt.Errorf("unknown output format %q: use -o table or -o json", output)
			}
			cfg, name, err := f.config()
			if err != nil {
				return err
			}
			fmt.Fprintf(errOut, "reading the Networks of %s ...\n", name)
			nets, err := networklist.List(ctx, cfg)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if output == "json" {
				return printJSON(out, nets)
			}
			return networklist.PrintTable(out, nets)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	return c
}
