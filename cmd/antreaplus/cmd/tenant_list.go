package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/tenancy/tenantadmin"
)

func tenantList(f *contextFlags, out, errOut io.Writer) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "list [-o table|json]",
		Short: "List the tenants: controller, claim owner, accounts, VPCs, VMs, policies, warnings",
		Long: `list shows every tenant of the cluster: each Namespace labelled tenancy.antreaplus.io/tenant=true
or claimed by a controller. CONTROLLER is the instance that should manage it (the Namespace's
tenancy.antreaplus.io/controller, else shared); OWNER the holder of its claim Lease,
"<instance>/<replica>" ("(expired)" when no longer renewed, "-" when unclaimed); ACCOUNTS,
VPCS (distinct VPCs or VNets of its VMs), VMS and POLICIES (Antrea NetworkPolicies and
FederatedNetworkPolicies, a derived Antrea policy counted as its federated one) what it holds;
WARNINGS what contends for it (another instance selecting it) or is amiss.`,
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
			fmt.Fprintf(errOut, "reading the tenants of %s ...\n", name)
			l, err := tenantadmin.List(ctx, cfg, time.Now())
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if output == "json" {
				return printJSON(out, l)
			}
			return tenantadmin.PrintTable(out, *l)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	return c
}
