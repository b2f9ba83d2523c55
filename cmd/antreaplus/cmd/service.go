package cmd

import (
	"io"

	"github.com/spf13/cobra"
)

// serviceFlags are the flags every service command shares.
type serviceFlags struct {
	federationFlags
	namespace string
	context   string
}

func newServiceCommand(out, errOut io.Writer) *cobra.Command {
	f := &serviceFlags{}
	c := &cobra.Command{
		Use:   "service",
		Short: "Export Services to the federation, withdraw them, list the federated Services",
		Long: `A Service exported from a member (a ServiceExport next to it, KEP-1645) becomes a federated
Service: every member where its namespace exists gets a ServiceImport, a cluster-set IP and the
endpoints of every exporting member, resolvable as <name>.<namespace>.svc.clusterset.local.
Each exporting member offers the addresses reachable from outside it: its LoadBalancer IPs,
its nodes on the node ports, or its Pod IPs when the export declares a flat network.`,
	}
	c.PersistentFlags().StringVar(&f.kubeconfig, "kubeconfig", defaultKubeconfig(),
		"kubeconfig file(s), ':'-separated; defaults to $KUBECONFIG, else the sandbox's kubeconfig if there is one, else ~/.kube/config")
	c.AddCommand(serviceExport(f, out, errOut), serviceUnexport(f, out), serviceList(f, out, errOut))
	return c
}

// addTargetFlags adds -n and --context, for the commands acting on one Service.
func (f *serviceFlags) addTargetFlags(c *cobra.Command) {
	c.Flags().StringVarP(&f.namespace, "namespace", "n", "default", "namespace of the Service")
	c.Flags().StringVar(&f.context, "context", "", "kubeconfig context of the member the Service is in (required)")
	_ = c.MarkFlagRequired("context")
}
