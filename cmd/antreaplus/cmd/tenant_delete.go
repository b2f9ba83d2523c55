package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/tenancy/tenantadmin"
)

func tenantDelete(f *configFlags, out io.Writer) *cobra.Command {
	var force bool
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "delete NAME [--force] [--timeout 2m]",
		Short: "Delete a tenant: its own cloud controller, its admins' RoleBinding, its Namespace",
		Example: `  antreaplus tenant delete alpha
  antreaplus tenant delete beta --force`,
		Long: `delete deletes the tenant's own cloud controller (if it has one), the RoleBinding of its admins
and its Namespace with everything in it, and waits until the Namespace is gone. It refuses a
Namespace that is not labelled tenancy.antreaplus.io/tenant=true, and a tenant that still holds
CloudProviderAccounts unless --force: delete them first, so that the cloud controller removes
what they imported.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			cfg, name, err := f.currentContext()
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "%s: deleting tenant %s ...\n", name, args[0])
			if err := tenantadmin.Delete(ctx, cfg, tenantadmin.DeleteOptions{Tenant: args[0], Force: force, Timeout: timeout, Progress: out}); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			fmt.Fprintf(out, "Tenant %s deleted from %s.\n", args[0], name)
			return nil
		},
	}
	c.Flags().BoolVar(&force, "force", false, "delete a tenant that still holds CloudProviderAccounts")
	c.Flags().DurationVar(&timeout, "timeout", tenantadmin.DefaultDeleteTimeout, "how long to wait until the Namespace is gone")
	return c
}
