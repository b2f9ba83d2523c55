package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/tenancy/tenantadmin"
)

func tenantList(f *configFlags, out, errOut io.Writer) *cobra.Command {
	var p printFlags
	c := &cobra.Command{
		Use:   "list [-o table|json|yaml]",
		Short: "List the tenants: controller, claim owner, accounts, VPCs, VMs, policies, warnings",
		Example: `  antreaplus tenant list --context member-1
  antreaplus tenant list -o json`,
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
			if err := p.validate(); err != nil {
				return err
			}
			cfg, name, err := f.currentContext()
			if err != nil {
				return err
			}
			fmt.Fprintf(errOut, "reading the tenants of %s ...\n", name)
			l, err := tenantadmin.List(ctx, cfg, time.Now())
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return p.print(out, l, func(w io.Writer) error { return tenantadmin.PrintTable(w, *l) })
		},
	}
	addPrintFlags(c.Flags(), &p, "table")
	completePrintFlags(c, &p)
	return c
}
