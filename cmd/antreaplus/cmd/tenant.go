package cmd

import (
	"io"

	"github.com/spf13/cobra"
)

func newTenantCommand(f *configFlags, out, errOut io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "tenant",
		Short: "Create, list and delete tenants: Namespaces with their admins and, for hard tenancy, a cloud controller of their own",
		Example: `  antreaplus tenant create alpha --admin-user alice
  antreaplus tenant list`,
		Long: `A tenant is a Namespace labelled tenancy.antreaplus.io/tenant=true. Its admins are bound to the
chart's ClusterRole antreaplus-tenant-admin in it: they manage its cloud accounts, their
Secrets, its selectors and its Antrea and federated policies, and nothing outside it. The
shared cloud controller manages every tenant that names no controller of its own; a tenant
created with --dedicated-controller gets one (hard tenancy). The commands work on one cluster,
the --context of the kubeconfig (default: its current context), as the user that context names:
the persona antreaplus-cluster-admin may create, list and delete tenants without a controller
of their own.`,
	}
	c.AddCommand(tenantCreate(f, out), tenantList(f, out, errOut), tenantDelete(f, out))
	return c
}
