package cmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"antreaplus.io/antreaplus/pkg/federation/membership"
)

// contextFlags are the flags of the commands that work on one cluster of a kubeconfig (tenant, network).
type contextFlags struct {
	kubeconfig string
	context    string
}

func newTenantCommand(out, errOut io.Writer) *cobra.Command {
	f := &contextFlags{}
	c := &cobra.Command{
		Use:   "tenant",
		Short: "Create, list and delete tenants: Namespaces with their admins and, for hard tenancy, a cloud controller of their own",
		Long: `A tenant is a Namespace labelled tenancy.antreaplus.io/tenant=true. Its admins are bound to the
chart's ClusterRole antreaplus-tenant-admin in it: they manage its cloud accounts, their
Secrets, its selectors and its Antrea and federated policies, and nothing outside it. The
shared cloud controller manages every tenant that names no controller of its own; a tenant
created with --dedicated-controller gets one (hard tenancy). The commands work on one cluster,
the --context of the kubeconfig (default: its current context), as the user that context names:
the persona antreaplus-cluster-admin may create, list and delete tenants without a controller
of their own.`,
	}
	c.PersistentFlags().StringVar(&f.kubeconfig, "kubeconfig", defaultKubeconfig(),
		"kubeconfig file(s), ':'-separated; defaults to $KUBECONFIG, else the sandbox's kubeconfig if there is one, else ~/.kube/config")
	c.PersistentFlags().StringVar(&f.context, "context", "", "kubeconfig context of the cluster (default: the kubeconfig's current context)")
	c.AddCommand(tenantCreate(f, out), tenantList(f, out, errOut), tenantDelete(f, out))
	return c
}

// config is the client configuration of the chosen context, and its name.
func (f *contextFlags) config() (*rest.Config, string, error) {
	if f.kubeconfig == "" {
		return nil, "", errors.New("no kubeconfig: pass one with --kubeconfig")
	}
	paths := filepath.SplitList(f.kubeconfig)
	name := f.context
	if name == "" {
		raw, err := (&clientcmd.ClientConfigLoadingRules{Precedence: paths}).Load()
		if err != nil {
			return nil, "", fmt.Errorf("loading kubeconfig %s: %w", f.kubeconfig, err)
		}
		if name = raw.CurrentContext; name == "" {
			return nil, "", fmt.Errorf("kubeconfig %s has no current context: name the cluster with --context CONTEXT", f.kubeconfig)
		}
	}
	kc, err := membership.LoadKubeconfig(paths...)
	if err != nil {
		return nil, "", err
	}
	c, err := kc.Cluster(name)
	if err != nil {
		return nil, "", err
	}
	return c.Config, name, nil
}
