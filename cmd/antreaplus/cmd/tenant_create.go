package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/tenancy"
	"antreaplus.io/antreaplus/pkg/tenancy/tenantadmin"
)

func tenantCreate(f *configFlags, out io.Writer) *cobra.Command {
	var users, groups, labels []string
	var dedicated bool
	c := &cobra.Command{
		Use:   "create NAME [--admin-user U]... [--admin-group G]... [--dedicated-controller] [--label k=v]...",
		Short: "Create a tenant (or bring it up to date): its Namespace, its admins, its own cloud controller",
		Example: `  antreaplus tenant create alpha --admin-user alice --context member-1
  # hard tenancy: a cloud controller of its own
  antreaplus tenant create beta --admin-group beta-admins --dedicated-controller`,
		Long: `create makes the Namespace NAME labelled tenancy.antreaplus.io/tenant=true (and the --label
labels), and the RoleBinding antreaplus-tenant-admin in it binding the --admin-user and
--admin-group subjects to the ClusterRole antreaplus-tenant-admin. With --dedicated-controller the
tenant gets a cloud controller of its own: the Namespace is labelled
tenancy.antreaplus.io/controller=NAME, which the shared controller leaves to it, and the installed
Deployment antreaplus-system/antreaplus-cloud-controller is copied as
antreaplus-cloud-controller-NAME, running the instance NAME over that label only (the cloud
role must be installed; run it again after an upgrade to follow the new version). Run again,
it changes nothing that is as it should be and adds the admins given; it removes nothing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			extra, err := parseLabels(labels)
			if err != nil {
				return err
			}
			cfg, name, err := f.currentContext()
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "%s: creating tenant %s ...\n", name, args[0])
			res, err := tenantadmin.Create(ctx, cfg, tenantadmin.CreateOptions{Tenant: args[0], AdminUsers: users, AdminGroups: groups,
				Dedicated: dedicated, Labels: extra, Progress: out})
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			fmt.Fprintln(out, createSummary(name, args[0], res))
			return nil
		},
	}
	c.Flags().StringArrayVar(&users, "admin-user", nil, "user to bind as the tenant's admin (repeatable)")
	c.Flags().StringArrayVar(&groups, "admin-group", nil, "group to bind as the tenant's admins (repeatable)")
	c.Flags().BoolVar(&dedicated, "dedicated-controller", false, "run a cloud controller for this tenant alone (hard tenancy)")
	c.Flags().StringArrayVar(&labels, "label", nil, "label of the Namespace, key=value (repeatable)")
	return c
}

// createSummary is the line that ends tenant create.
func createSummary(cluster, tenant string, res *tenantadmin.CreateResult) string {
	admins := "none yet"
	if len(res.Admins) > 0 {
		admins = strings.Join(res.Admins, ", ")
	}
	controller := "the shared cloud controller"
	if res.Deployment != "" {
		controller = "its own cloud controller, instance " + res.Controller
	} else if res.Controller != tenancy.DefaultInstance {
		controller = "the cloud controller instance " + res.Controller
	}
	return fmt.Sprintf("Tenant %s ready in %s: admins %s; managed by %s.", tenant, cluster, admins, controller)
}
