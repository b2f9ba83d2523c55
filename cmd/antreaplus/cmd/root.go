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
		Example: `  # a local federation of three clusters, and its state
  antreaplus sandbox up --supervisors 2
  antreaplus federation status
  # export a Service from member-2 and list what the federation serves
  antreaplus service export web -n shop --context member-2
  antreaplus service list`,
		Long: `antreaplus sets up and shows an AntreaPlus federation of Kubernetes clusters,
and runs a local sandbox of real clusters to try it.`,
		SilenceUsage: true,
		// completion is ours (newCompletionCommand), with examples.
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetOut(out)
	root.SetErr(errOut)
	cfg := &configFlags{}
	cfg.addTo(root.PersistentFlags())
	cfg.complete(root)
	root.AddCommand(newSandboxCommand(out, errOut))
	root.AddCommand(newFederationCommand(cfg, out, errOut))
	root.AddCommand(newServiceCommand(cfg, out, errOut))
	root.AddCommand(newPolicyCommand(cfg, out, errOut))
	root.AddCommand(newTenantCommand(cfg, out, errOut))
	root.AddCommand(newNetworkCommand(cfg, out, errOut))
	root.AddCommand(newTraceCommand(cfg, out, errOut))
	root.AddCommand(newConsoleCommand(cfg, out, errOut))
	root.AddCommand(newInstallCommand(cfg, out), newUpgradeCommand(cfg, out), newUninstallCommand(cfg, out))
	root.AddCommand(newCompletionCommand(out))
	return root
}
