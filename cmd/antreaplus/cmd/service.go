package cmd

import (
	"io"

	"github.com/spf13/cobra"
)

// serviceFlags are the flags every service command shares.
type serviceFlags struct {
	federationFlags
	namespace string
}

func newServiceCommand(cfg *configFlags, out, errOut io.Writer) *cobra.Command {
	f := &serviceFlags{federationFlags: federationFlags{configFlags: cfg}}
	c := &cobra.Command{
		Use:   "service",
		Short: "Export Services to the federation, withdraw them, list the federated Services",
		Example: `  antreaplus service export web -n shop --context member-2
  antreaplus service list`,
		Long: `A Service exported from a member (a ServiceExport next to it, KEP-1645) becomes a federated
Service: every member where its namespace exists gets a ServiceImport, a cluster-set IP and the
endpoints of every exporting member, resolvable as <name>.<namespace>.svc.clusterset.local.
Each exporting member offers the addresses reachable from outside it: its LoadBalancer IPs,
its nodes on the node ports, or its Pod IPs when the export declares a flat network.`,
	}
	c.AddCommand(serviceExport(f, out, errOut), serviceUnexport(f, out), serviceList(f, out, errOut))
	return c
}

// addTargetFlags adds -n, for the commands acting on one Service (in the
// member of the one --context).
func (f *serviceFlags) addTargetFlags(c *cobra.Command) {
	c.Flags().StringVarP(&f.namespace, "namespace", "n", "default", "namespace of the Service")
}
