package cmd

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

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
			list := func(ctx context.Context, cfg *rest.Config) (*tenantadmin.Listing, error) {
				return tenantadmin.List(ctx, cfg, time.Now())
			}
			table := func(w io.Writer, l *tenantadmin.Listing) error { return tenantadmin.PrintTable(w, *l) }
			return listCurrent(ctx, f, &p, out, errOut, "tenants", list, table)
		},
	}
	addPrintFlags(c, c.Flags(), &p, "table")
	return c
}
