// Package cmd holds the antreaplus cobra commands. They parse flags and
// print; the work is done by the libraries under pkg/.
package cmd

import (
	"io"

	"github.com/spf13/cobra"
)

// NewRoot returns the antreaplus command tree writing to out and errOut.
func NewRoot(out, errOut io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "antreaplus",
		Short: "One service and security fabric across Kubernetes clusters and cloud VMs",
		Long: `antreaplus sets up and shows an AntreaPlus federation of Kubernetes clusters,
and runs a local sandbox of real clusters to try it.`,
		SilenceUsage: true,
	}
	root.SetOut(out)
	root.SetErr(errOut)
	root.AddCommand(newSandboxCommand(out, errOut))
	root.AddCommand(newFederationCommand(out, errOut))
	root.AddCommand(newServiceCommand(out, errOut))
	root.AddCommand(newPolicyCommand(out, errOut))
	root.AddCommand(newTenantCommand(out, errOut))
	root.AddCommand(newNetworkCommand(out, errOut))
	root.AddCommand(newInstallCommand(out), newUpgradeCommand(out), newUninstallCommand(out))
	return root
}
