package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

// startVMAgents plays the local cloud's agented VMs in network namespaces.
func startVMAgents(ctx context.Context, sb *sandbox.Sandbox) error {
	var opts sandbox.VMAgentOptions
	var err error
	if opts.Agent, err = sb.FindBinary(ctx, "vm-agent"); err != nil {
		return err
	}
	if opts.Helper, err = os.Executable(); err != nil {
		return err
	}
	return sb.StartVMAgents(ctx, opts)
}

// printCloudStatus lists which member imports which cloud, with its
// policy controller, and the VMs played, with their addresses and members.
func printCloudStatus(w io.Writer, cloud *sandbox.CloudState) {
	if cloud == nil {
		return
	}
	fmt.Fprintf(w, "\nCLOUD\tMEMBER\tACCOUNT\tPOLICY CONTROLLER\tNAMESPACE\n")
	for _, m := range cloud.Members {
		for i, c := range m.Clouds {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", c, m.Cluster, m.Accounts[i], m.PolicyServer, cloud.Namespace)
		}
	}
	if t := cloud.Tenancy; t != nil {
		fmt.Fprintf(w, "\nTENANT\tMEMBER\tACCOUNT\tINSTANCE\tITS REPLICAS\n")
		for _, tp := range t.Tenants {
			var by []string
			for _, c := range t.Controllers {
				if c.Instance == tp.Instance {
					by = append(by, c.Holder())
				}
			}
			fmt.Fprintf(w, "%s\t%s\tAWS %s\t%s\t%s\n", tp.Namespace, t.Cluster, tp.Account, tp.Instance, strings.Join(by, ", "))
		}
	}
	if len(cloud.VMs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nVM\tCLOUD\tMEMBER\tIP\tCLOUD NAME\n")
	for _, vm := range cloud.VMs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", vm.Name, vm.Cloud, vm.Cluster, vm.IP, vm.CloudName)
	}
}

func sandboxProbe(f *sandboxFlags, out io.Writer) *cobra.Command {
	var from, to, expect string
	var timeout time.Duration
	var p printFlags
	c := &cobra.Command{
		Use:   "probe --from VM --to VM:PORT|IP:PORT",
		Short: "Open a TCP connection from a VM's network namespace (up --vm-agents) and say whether it was allowed",
		Long: `Opens a real TCP connection from the network namespace that plays the VM --from
(see 'antreaplus sandbox up --cloud --vm-agents') to --to, and echoes a message: the
VM agents' nftables rules decide. VMs are named as 'sandbox status' lists them: an
Azure VM whose name an AWS VM has is prefixed, e.g. azure-dev-build-1; aws-dev-build-1
names AWS's dev-build-1 too. It prints connected, refused (a Reject rule) or
dropped (a Drop rule: nothing came back within --timeout). With --expect, it fails
unless the outcome is the expected one. Needs root.`,
		Example: `  antreaplus sandbox probe --from dev-build-1 --to dev-build-2:8080
  antreaplus sandbox probe --from dev-build-1 --to azure-dev-build-1:8080
  antreaplus sandbox probe --from dev-build-3 --to 10.40.0.5:8080 --expect blocked`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if expect != "" && expect != "connected" && expect != "blocked" {
				return fmt.Errorf("--expect %q: want connected or blocked", expect)
			}
			if err := p.validate(); err != nil {
				return err
			}
			res, err := f.sandbox(io.Discard).Probe(cmd.Context(), from, to, timeout)
			if err != nil {
				return err
			}
			err = p.print(out, res, func(out io.Writer) error {
				to := res.To
				if res.ToVM != "" {
					to = res.ToVM + " (" + res.To + ")"
				}
				_, err := fmt.Fprintf(out, "%s (%s) -> %s: %s\n", res.From.Name, res.From.IP, to, res.Outcome)
				return err
			})
			if err != nil {
				return err
			}
			if expect != "" && (expect == "blocked") != res.Outcome.Blocked() {
				return fmt.Errorf("expected %s, got %s", expect, res.Outcome)
			}
			return nil
		},
	}
	c.Flags().StringVar(&from, "from", "", "VM whose namespace the connection starts from, e.g. dev-build-1")
	c.Flags().StringVar(&to, "to", "", "VM:PORT or IP:PORT to connect to, e.g. dev-build-2:8080")
	c.Flags().StringVar(&expect, "expect", "", "fail unless the outcome is this: connected or blocked (refused or dropped)")
	c.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "how long to wait for the connection and the echo")
	addPrintFlags(c, c.Flags(), &p, "")
	_ = c.MarkFlagRequired("from")
	_ = c.MarkFlagRequired("to")
	return c
}

// sandboxServeTCP is what 'up --vm-agents' runs for each VM: its TCP echo
// listener, and the relay from its loopback to the policy controller.
func sandboxServeTCP() *cobra.Command {
	var opts sandbox.TCPServerOptions
	c := &cobra.Command{
		Use:    "serve-tcp --listen ADDR [--netns NAME] [--forward ADDR]",
		Short:  "Echo TCP connections, or relay them to --forward (run by 'up --vm-agents')",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			return sandbox.ServeTCP(ctx, opts)
		},
	}
	c.Flags().StringVar(&opts.Listen, "listen", "0.0.0.0:8080", "address to listen on")
	c.Flags().StringVar(&opts.NetNS, "netns", "", "network namespace to listen in (default: this process's)")
	c.Flags().StringVar(&opts.Forward, "forward", "", "relay every connection to this address, dialled from this process's namespace (default: echo)")
	return c
}
