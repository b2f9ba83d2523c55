package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

type sandboxFlags struct {
	dir         string
	apiPortBase int
	nodes       int
	light       bool
}

func newSandboxCommand(out, errOut io.Writer) *cobra.Command {
	f := &sandboxFlags{}
	c := &cobra.Command{
		Use:   "sandbox",
		Short: "Run real Kubernetes clusters locally (kwok-simulated nodes)",
		Example: `  antreaplus sandbox up --supervisors 2 --cloud
  antreaplus sandbox status
  antreaplus sandbox down`,
		Long: `The sandbox runs member-1 ... member-N as local processes: etcd, kube-apiserver,
kube-controller-manager, kube-scheduler and kwok, built from source and cached by 'make tools'.
Every cluster has its own Pod and Service CIDRs, a few simulated nodes, and the AntreaPlus
and Multi-Cluster Services CRDs. One kubeconfig holds a context per cluster.`,
	}
	c.PersistentFlags().StringVar(&f.dir, "dir", sandbox.DefaultDir(), "sandbox directory (state, kubeconfig, logs); also $"+sandbox.DirEnv)
	docDefault(c.PersistentFlags(), "dir", "$"+sandbox.DirEnv+", else ~/.antreaplus/sandbox")
	c.AddCommand(
		sandboxUp(f, out, errOut),
		sandboxDown(f, errOut),
		sandboxStatus(f, out),
		sandboxKubeconfig(f, out),
		sandboxProbe(f, out),
		sandboxServeTCP(),
		sandboxPodExec(),
		sandboxRelay(),
	)
	return c
}

func (f *sandboxFlags) sandbox(progress io.Writer) *sandbox.Sandbox {
	return sandbox.New(sandbox.Options{Dir: f.dir, APIPortBase: f.apiPortBase, NodesPerCluster: f.nodes, Light: f.light, Progress: progress})
}

// signalContext is cancelled by Ctrl-C or SIGTERM.
func signalContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}

// startCloud runs the sandbox's local cloud and its members' controllers,
// and the tenants when tenancy is asked for.
func startCloud(ctx context.Context, sb *sandbox.Sandbox, p sandbox.CloudPlacement, tenancy, networks bool) error {
	opts := sandbox.CloudOptions{Cluster: p.Cluster, AWSCluster: p.AWS, AzureCluster: p.Azure, Tenancy: tenancy, Networks: networks}
	var err error
	if opts.Emulator, err = sb.FindBinary(ctx, "cloud-emulator"); err != nil {
		return err
	}
	if opts.Controller, err = sb.FindBinary(ctx, "cloud-controller"); err != nil {
		return err
	}
	if opts.PolicyController, err = sb.FindBinary(ctx, "policy-controller"); err != nil {
		return err
	}
	return sb.StartCloud(ctx, opts)
}

// printCloud says where the local cloud is imported and how to see it.
func printCloud(out io.Writer, sb *sandbox.Sandbox) {
	st, err := sb.LoadState()
	if err != nil || st.Cloud == nil {
		return
	}
	fmt.Fprintf(out, "\nLocal cloud (an emulator, not AWS or Azure), namespace %s:\n", st.Cloud.Namespace)
	for _, m := range st.Cloud.Members {
		fmt.Fprintf(out, "  %v into %s (policy controller %s): kubectl --context %s -n %s get cloudprovideraccounts,virtualmachines,externalentities\n",
			m.Clouds, m.Cluster, m.PolicyServer, m.Cluster, st.Cloud.Namespace)
	}
	if t := st.Cloud.Tenancy; t != nil {
		fmt.Fprintf(out, "Tenants %s in %s, each with an AWS account of its own: antreaplus tenant list --context %s\n",
			strings.Join(t.TenantNamespaces(), ", "), t.Cluster, t.Cluster)
	}
}

// startExternalDNS runs the sandbox's external DNS stack.
func startExternalDNS(ctx context.Context, sb *sandbox.Sandbox) error {
	coredns, err := sb.FindBinary(ctx, "coredns")
	if err != nil {
		return err
	}
	return sb.StartExternalDNS(ctx, sandbox.ExternalDNSOptions{CoreDNS: coredns})
}

// printExternalDNS says where the federation's names are answered outside
// the members, and how to ask.
func printExternalDNS(out io.Writer, sb *sandbox.Sandbox) {
	st, err := sb.LoadState()
	if err != nil || st.ExternalDNS == nil {
		return
	}
	e := st.ExternalDNS
	fmt.Fprintf(out, "\nExternal DNS: %s's leader publishes the federation's names under %s (TTL %d s) through ExternalDNS, answered on %s:\n  %s\n",
		e.Cluster, e.Domain, e.RecordTTL, e.Server.Endpoint(), e.Dig(fmt.Sprintf("<service>.<namespace>.%s.svc[.<zone>][.<region>].%s", st.FederationID, e.Domain)))
}

// startMemberServices runs every member's member controller and DNS server.
func startMemberServices(ctx context.Context, sb *sandbox.Sandbox) error {
	var opts sandbox.MemberServicesOptions
	var err error
	if opts.MemberController, err = sb.FindBinary(ctx, "member-controller"); err != nil {
		return err
	}
	if opts.CoreDNS, err = sb.FindBinary(ctx, "coredns"); err != nil {
		return err
	}
	return sb.StartMemberServices(ctx, opts)
}

func sandboxDown(f *sandboxFlags, errOut io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "down",
		Short: "Stop every sandbox cluster and remove the sandbox directory",
		Example: `  antreaplus sandbox down
  antreaplus sandbox down --dir /tmp/other-sandbox`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.sandbox(errOut).Down(cmd.Context())
		},
	}
}

func sandboxStatus(f *sandboxFlags, out io.Writer) *cobra.Command {
	var p printFlags
	c := &cobra.Command{
		Use:   "status",
		Short: "Show each sandbox cluster and whether its API server answers",
		Example: `  antreaplus sandbox status
  antreaplus sandbox status -o json | jq '.services[] | select(.kind == "dns")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := p.validate(); err != nil {
				return err
			}
			sb := f.sandbox(io.Discard)
			statuses, err := sb.Status(cmd.Context())
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("no sandbox in %s: start one with 'antreaplus sandbox up'", sb.Dir())
			}
			if err != nil {
				return err
			}
			services, err := sb.Services(cmd.Context())
			if err != nil {
				return err
			}
			st, err := sb.LoadState()
			if err != nil {
				return err
			}
			all := struct {
				Clusters    []sandbox.ClusterStatus   `json:"clusters"`
				Services    []sandbox.ServiceStatus   `json:"services"`
				Cloud       *sandbox.CloudState       `json:"cloud,omitempty"`
				ExternalDNS *sandbox.ExternalDNSState `json:"externalDNS,omitempty"`
			}{statuses, services, st.Cloud, st.ExternalDNS}
			return p.print(out, all, func(out io.Writer) error { return printSandboxStatus(out, sb, statuses, services, st) })
		},
	}
	addPrintFlags(c, c.Flags(), &p, "")
	return c
}

// printSandboxStatus writes the tables of sandbox status; an error says
// what is not ready.
func printSandboxStatus(out io.Writer, sb *sandbox.Sandbox, statuses []sandbox.ClusterStatus, services []sandbox.ServiceStatus, st *sandbox.State) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "CLUSTER\tAPI SERVER\tREADY\tPOD CIDR\tSERVICE CIDR")
	var problems []string
	for _, s := range statuses {
		ready := "yes"
		if !s.Ready {
			ready = "NO"
			problems = append(problems, fmt.Sprintf("%s: %s (logs: %s)", s.Name, s.Error, s.LogDir))
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Server, ready, s.PodCIDR, s.ServiceCIDR)
	}
	if len(services) > 0 {
		fmt.Fprintln(w, "\nCLUSTER\tPROCESS\tPID\tADDRESS\tREADY")
		for _, s := range services {
			ready := "yes"
			if !s.Ready {
				ready = "NO"
				problems = append(problems, fmt.Sprintf("%s: the %s is not ready (log: %s)", s.Cluster, s.Kind, s.Log))
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\n", s.Cluster, s.Kind, s.Pid, s.Address, ready)
		}
	}
	printCloudStatus(w, st.Cloud)
	if err := w.Flush(); err != nil {
		return err
	}
	printExternalDNS(out, sb)
	fmt.Fprintf(out, "\nKubeconfig: %s\nLogs:       %s\n", sb.KubeconfigPath(), sb.LogDir("<cluster>"))
	for _, p := range problems {
		fmt.Fprintf(out, "\n%s", p)
	}
	if notReady := len(problems); notReady > 0 {
		fmt.Fprintln(out)
		return fmt.Errorf("%d clusters or processes are not ready: 'antreaplus sandbox up' (with the same flags) restarts them; their logs are listed above", notReady)
	}
	return nil
}

func sandboxKubeconfig(f *sandboxFlags, out io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "kubeconfig",
		Short: "Print the path of the sandbox's kubeconfig",
		Example: `  export KUBECONFIG=$(antreaplus sandbox kubeconfig)
  kubectl --context member-1 get nodes`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			sb := f.sandbox(io.Discard)
			if !sb.Exists() {
				return fmt.Errorf("no sandbox in %s: start one with 'antreaplus sandbox up'", sb.Dir())
			}
			fmt.Fprintln(out, sb.KubeconfigPath())
			return nil
		},
	}
}
