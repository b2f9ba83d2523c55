package cmd

import (
	"context"
	"encoding/json"
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
	dir          string
	clusters     int
	supervisors  int
	federationID string
	managerArgs  []string
	memberSvcs   bool
	cloud        bool
	tenancy      bool
	networks     bool
	placement    sandbox.CloudPlacement
	vmAgents     bool
	asInstalled  bool
	externalDNS  bool
	apiPortBase  int
	nodes        int
	output       string
}

func newSandboxCommand(out, errOut io.Writer) *cobra.Command {
	f := &sandboxFlags{}
	c := &cobra.Command{
		Use:   "sandbox",
		Short: "Run real Kubernetes clusters locally (kwok-simulated nodes)",
		Long: `The sandbox runs member-1 ... member-N as local processes: etcd, kube-apiserver,
kube-controller-manager, kube-scheduler and kwok, built from source and cached by 'make tools'.
Every cluster has its own Pod and Service CIDRs, a few simulated nodes, and the AntreaPlus
and Multi-Cluster Services CRDs. One kubeconfig holds a context per cluster.`,
	}
	c.PersistentFlags().StringVar(&f.dir, "dir", sandbox.DefaultDir(), "sandbox directory (state, kubeconfig, logs); also $"+sandbox.DirEnv)
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
	return sandbox.New(sandbox.Options{Dir: f.dir, APIPortBase: f.apiPortBase, NodesPerCluster: f.nodes, Progress: progress})
}

// signalContext is cancelled by Ctrl-C or SIGTERM.
func signalContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}

func sandboxUp(f *sandboxFlags, out, errOut io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "up",
		Short: "Start (or complete) a sandbox of N clusters; safe to re-run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			if f.vmAgents {
				if err := sandbox.VMAgentsSupported(); err != nil {
					return err
				}
			}
			if f.asInstalled {
				if err := sandbox.AsInstalledSupported(); err != nil {
					return err
				}
			}
			if f.tenancy && !f.cloud {
				return errors.New("--tenancy needs --cloud: the tenants' accounts are the local cloud's")
			}
			if f.tenancy && f.asInstalled {
				return errors.New("--tenancy runs the cloud controllers as local processes: not with --as-installed")
			}
			if f.externalDNS && f.supervisors == 0 {
				return errors.New("--external-dns publishes the federation's names: it needs --supervisors")
			}
			if f.externalDNS && f.asInstalled {
				return errors.New("--external-dns runs ExternalDNS, its etcd and DNS server as local processes: not with --as-installed")
			}
			sb := f.sandbox(errOut)
			if _, err := sb.Up(ctx, f.clusters); err != nil {
				return err
			}
			if err := sb.SetAsInstalled(f.asInstalled); err != nil {
				return err
			}
			st, err := sb.LoadState()
			if err != nil {
				return err
			}
			helper, err := os.Executable()
			if err != nil {
				return err
			}
			if st.AsInstalled && f.supervisors == 0 {
				if err := sb.InstallAll(ctx); err != nil {
					return err
				}
			}
			if f.supervisors > 0 {
				bin, err := sb.FindBinary(ctx, "federation-manager")
				if err != nil {
					return err
				}
				if f.externalDNS || st.ExternalDNS != nil {
					// In the first supervisor, before its manager starts:
					// the leaders find the DNSEndpoint API at once.
					if err := sb.InstallDNSEndpointCRD(ctx, st.Clusters[0].Name); err != nil {
						return err
					}
				}
				if err := sb.Federate(ctx, sandbox.FederationOptions{
					FederationID: f.federationID, Supervisors: f.supervisors, ManagerBinary: bin, ManagerArgs: f.managerArgs,
				}); err != nil {
					return err
				}
				if f.memberSvcs && !st.AsInstalled {
					if err := startMemberServices(ctx, sb); err != nil {
						return err
					}
				}
				// Asked for, or recorded by an earlier run: kept.
				if f.externalDNS || st.ExternalDNS != nil {
					if err := startExternalDNS(ctx, sb); err != nil {
						return err
					}
					defer printExternalDNS(out, sb)
				}
				defer fmt.Fprintf(out, "\nFederation %q: see it with 'antreaplus federation status'.\n", f.federationID)
			}
			if st.AsInstalled {
				if err := sb.RunInstalled(ctx, helper); err != nil {
					return err
				}
			}
			if f.cloud {
				if err := startCloud(ctx, sb, f.placement, f.tenancy, f.networks); err != nil {
					return err
				}
				if st.AsInstalled { // the cloud members' cloud controllers
					if err := sb.RunInstalled(ctx, helper); err != nil {
						return err
					}
				}
				defer printCloud(out, sb)
			}
			if f.vmAgents {
				if err := startVMAgents(ctx, sb); err != nil {
					return err
				}
				defer fmt.Fprintf(out, "\nAgented VMs play in network namespaces (%s): antreaplus sandbox probe --from VM --to VM:8080\n", sb.VMDir())
			}
			fmt.Fprintf(out, "Kubeconfig: %s\n\nUse it with:\n  export KUBECONFIG=%s\n", st.Kubeconfig, st.Kubeconfig)
			for _, p := range st.Clusters {
				fmt.Fprintf(out, "  kubectl --context %s get nodes\n", p.Name)
			}
			fmt.Fprintf(out, "\nSee 'antreaplus sandbox status'; stop everything with 'antreaplus sandbox down'.\n")
			return nil
		},
	}
	c.Flags().IntVar(&f.clusters, "clusters", 3, "number of clusters (member-1 ... member-N)")
	c.Flags().IntVar(&f.apiPortBase, "api-port-base", sandbox.DefaultAPIPortBase, "API server port of member-1; member-i uses base+i-1")
	c.Flags().IntVar(&f.nodes, "nodes", 3, "simulated nodes per cluster")
	c.Flags().IntVar(&f.supervisors, "supervisors", 0, "form a federation of all clusters with the first K as supervisors, each running a federation manager (0: no federation)")
	c.Flags().StringVar(&f.federationID, "federation-id", "sandbox", "ID of the sandbox's federation")
	c.Flags().StringSliceVar(&f.managerArgs, "manager-arg", nil, "extra flag for every federation manager, e.g. --manager-arg=--unreachable-grace=20s")
	c.Flags().BoolVar(&f.cloud, "cloud", false, "also run a local cloud: an AWS and Azure emulator with a few VMs and, in each member that imports a cloud, the cloud controller and the policy controller, whose policies on agentless VMs become the emulator's security groups")
	c.Flags().StringVar(&f.placement.AWS, "aws-cluster", "", "cluster the emulator's AWS account is imported into (default: --cloud-cluster, else member-1)")
	c.Flags().StringVar(&f.placement.Azure, "azure-cluster", "", "cluster the emulator's Azure account is imported into (default: --cloud-cluster, else member-2, or member-1 in a one-cluster sandbox)")
	c.Flags().StringVar(&f.placement.Cluster, "cloud-cluster", "", "import both clouds into this cluster (default: AWS into member-1, Azure into member-2); a re-run keeps them where they are")
	c.Flags().BoolVar(&f.tenancy, "tenancy", false, "with --cloud, also run tenants in the member that imports AWS: tenant-hard (with a cloud controller instance of its own), tenant-soft-1 and tenant-soft-2 (shared with cloud-demo by two replicas of the shared instance), each with an AWS account of its own; recorded: later runs keep it (not with --as-installed)")
	c.Flags().BoolVar(&f.networks, "networks", false, "with --cloud, also seed the edge networks: an AWS VPC and an Azure VNet of the same range (10.0.0.0/16) with a VM at the same private address in each, the VPC behind a NAT gateway; with --vm-agents their VMs are played behind routers that NAT as the clouds do (docs/networks.md); recorded: later runs keep it")
	c.Flags().BoolVar(&f.vmAgents, "vm-agents", false, "with --cloud, play each agented VM of both clouds in a network namespace on one bridge with its private IP, a TCP listener on 8080 and a VM agent connected to its member's policy controller, enforcing its policies with nftables (needs root)")
	c.Flags().BoolVar(&f.asInstalled, "as-installed", false, "install the chart in every cluster (as 'antreaplus install' does) and run each component as its Pod: the rendered Deployment's args, volumes, service account token and security context, in the Pod's own network and mount namespaces (needs root); recorded: later runs go on this way")
	c.Flags().BoolVar(&f.externalDNS, "external-dns", false, "with --supervisors, also publish the federation's names outside the members: the first supervisor's leader writes ExternalDNS DNSEndpoints (domain "+sandbox.ExternalDNSDomain+"), and an etcd, ExternalDNS (its CRD source and coredns provider) and a DNS server (our CoreDNS build, on "+sandbox.ExternalDNSAddr.String()+") run to answer them; recorded: later runs keep it (not with --as-installed)")
	c.Flags().BoolVar(&f.memberSvcs, "member-services", true, "with --supervisors, also run a member controller and a DNS server (on 127.0.53.i) in every member")
	return c
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
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.sandbox(errOut).Down(cmd.Context())
		},
	}
}

func sandboxStatus(f *sandboxFlags, out io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "status",
		Short: "Show each sandbox cluster and whether its API server answers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			if f.output == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Clusters    []sandbox.ClusterStatus   `json:"clusters"`
					Services    []sandbox.ServiceStatus   `json:"services"`
					Cloud       *sandbox.CloudState       `json:"cloud,omitempty"`
					ExternalDNS *sandbox.ExternalDNSState `json:"externalDNS,omitempty"`
				}{statuses, services, st.Cloud, st.ExternalDNS})
			}
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
		},
	}
	c.Flags().StringVarP(&f.output, "output", "o", "", "output format: json")
	return c
}

func sandboxKubeconfig(f *sandboxFlags, out io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "kubeconfig",
		Short: "Print the path of the sandbox's kubeconfig",
		Args:  cobra.NoArgs,
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
