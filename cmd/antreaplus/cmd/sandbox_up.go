package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

// upOptions are what 'sandbox up' is asked for, as kubectl's commands
// are built: Complete fills in what the flags do not say, Validate refuses
// what cannot work before anything starts, Run does it.
type upOptions struct {
	*sandboxFlags
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

	// helper is this program, which the as-installed components run
	// through (Complete).
	helper      string
	out, errOut io.Writer
}

func sandboxUp(f *sandboxFlags, out, errOut io.Writer) *cobra.Command {
	o := &upOptions{sandboxFlags: f, out: out, errOut: errOut}
	c := &cobra.Command{
		Use:   "up",
		Short: "Start (or complete) a sandbox of N clusters; safe to re-run",
		Long: `up starts the sandbox's clusters as local processes, or completes and restarts what is
missing of an earlier run: with --supervisors, a federation of every cluster with its managers,
member controllers and DNS servers; with --cloud, a local AWS and Azure with their cloud and
policy controllers; with --vm-agents, VMs played in network namespaces with their agents.
What a run records (--as-installed, --tenancy, --networks, --external-dns) later runs keep.`,
		Example: `  # three clusters, no federation
  antreaplus sandbox up
  # the federation of make demo: two supervisors, a local cloud, VMs with agents
  antreaplus sandbox up --clusters 3 --supervisors 2 --cloud --vm-agents --networks
  # every component installed by the chart and run as its Pod would be
  antreaplus sandbox up --supervisors 2 --as-installed
  # 30 light members (API servers only) with 3 supervisors
  antreaplus sandbox up --clusters 30 --supervisors 3 --light`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			return o.Run(ctx)
		},
	}
	c.Flags().IntVar(&o.clusters, "clusters", 3, "number of clusters (member-1 ... member-N)")
	c.Flags().IntVar(&o.apiPortBase, "api-port-base", sandbox.DefaultAPIPortBase, "API server port of member-1; member-i uses base+i-1")
	c.Flags().IntVar(&o.nodes, "nodes", 3, "simulated nodes per cluster")
	c.Flags().IntVar(&o.supervisors, "supervisors", 0, "form a federation of all clusters with the first K as supervisors, each running a federation manager (0: no federation)")
	c.Flags().StringVar(&o.federationID, "federation-id", "sandbox", "ID of the sandbox's federation")
	c.Flags().StringSliceVar(&o.managerArgs, "manager-arg", nil, "extra flag for every federation manager, e.g. --manager-arg=--unreachable-grace=20s")
	c.Flags().BoolVar(&o.cloud, "cloud", false, "also run a local cloud: an AWS and Azure emulator with a few VMs and, in each member that imports a cloud, the cloud controller and the policy controller, whose policies on agentless VMs become the emulator's security groups")
	c.Flags().StringVar(&o.placement.AWS, "aws-cluster", "", "cluster the emulator's AWS account is imported into (default: --cloud-cluster, else member-1)")
	c.Flags().StringVar(&o.placement.Azure, "azure-cluster", "", "cluster the emulator's Azure account is imported into (default: --cloud-cluster, else member-2, or member-1 in a one-cluster sandbox)")
	c.Flags().StringVar(&o.placement.Cluster, "cloud-cluster", "", "import both clouds into this cluster (default: AWS into member-1, Azure into member-2); a re-run keeps them where they are")
	c.Flags().BoolVar(&o.tenancy, "tenancy", false, "with --cloud, also run tenants in the member that imports AWS: tenant-hard (with a cloud controller instance of its own), tenant-soft-1 and tenant-soft-2 (shared with cloud-demo by two replicas of the shared instance), each with an AWS account of its own; recorded: later runs keep it (not with --as-installed)")
	c.Flags().BoolVar(&o.networks, "networks", false, "with --cloud, also seed the edge networks: an AWS VPC and an Azure VNet of the same range (10.0.0.0/16) with a VM at the same private address in each, the VPC behind a NAT gateway; with --vm-agents their VMs are played behind routers that NAT as the clouds do (docs/networks.md); recorded: later runs keep it")
	c.Flags().BoolVar(&o.vmAgents, "vm-agents", false, "with --cloud, play each agented VM of both clouds in a network namespace on one bridge with its private IP, a TCP listener on 8080 and a VM agent connected to its member's policy controller, enforcing its policies with nftables (needs root)")
	c.Flags().BoolVar(&o.asInstalled, "as-installed", false, "install the chart in every cluster (as 'antreaplus install' does) and run each component as its Pod: the rendered Deployment's args, volumes, service account token and security context, in the Pod's own network and mount namespaces (needs root); recorded: later runs go on this way")
	c.Flags().BoolVar(&o.externalDNS, "external-dns", false, "with --supervisors, also publish the federation's names outside the members: the first supervisor's leader writes ExternalDNS DNSEndpoints (domain "+sandbox.ExternalDNSDomain+"), and an etcd, ExternalDNS (its CRD source and coredns provider) and a DNS server (our CoreDNS build, on "+sandbox.ExternalDNSAddr.String()+") run to answer them; recorded: later runs keep it (not with --as-installed)")
	c.Flags().BoolVar(&o.light, "light", false, "start light members: etcd and kube-apiserver only, no controller manager, scheduler or kwok; the sandbox writes the nodes (Ready) and the federation account's token; no Pods, Namespaces are never deleted (for many members: docs/scale.md); recorded: later runs keep it (not with --cloud or --as-installed)")
	c.Flags().BoolVar(&o.memberSvcs, "member-services", true, "with --supervisors, also run a member controller and a DNS server (on 127.0.53.i) in every member")
	return c
}

// Complete finds this program, which as-installed components run through.
func (o *upOptions) Complete() error {
	helper, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the antreaplus program: %w", err)
	}
	o.helper = helper
	return nil
}

// Validate refuses flags that cannot work together, or on this machine,
// before anything starts.
func (o *upOptions) Validate() error {
	switch {
	case o.clusters < 1:
		return fmt.Errorf("--clusters %d: a sandbox has at least one cluster", o.clusters)
	case o.nodes < 1:
		return fmt.Errorf("--nodes %d: a cluster has at least one node", o.nodes)
	case o.supervisors < 0 || o.supervisors > o.clusters:
		return fmt.Errorf("--supervisors %d: between 0 (no federation) and --clusters (%d)", o.supervisors, o.clusters)
	case o.tenancy && !o.cloud:
		return errors.New("--tenancy needs --cloud: the tenants' accounts are the local cloud's")
	case o.tenancy && o.asInstalled:
		return errors.New("--tenancy runs the cloud controllers as local processes: not with --as-installed")
	case o.externalDNS && o.supervisors == 0:
		return errors.New("--external-dns publishes the federation's names: it needs --supervisors")
	case o.light && (o.cloud || o.asInstalled):
		return errors.New("--light members run no Pods: not with --cloud or --as-installed")
	case o.externalDNS && o.asInstalled:
		return errors.New("--external-dns runs ExternalDNS, its etcd and DNS server as local processes: not with --as-installed")
	}
	if o.vmAgents {
		if err := sandbox.VMAgentsSupported(); err != nil {
			return err
		}
	}
	if o.asInstalled {
		if err := sandbox.AsInstalledSupported(); err != nil {
			return err
		}
	}
	return nil
}

// Run starts what is missing, in order: the clusters, the federation and
// its member services, the as-installed components, the cloud, the VMs.
// What to use next is printed once everything runs.
func (o *upOptions) Run(ctx context.Context) error {
	out := o.out
	sb := o.sandbox(o.errOut)
	if _, err := sb.Up(ctx, o.clusters); err != nil {
		return err
	}
	if err := sb.SetAsInstalled(o.asInstalled); err != nil {
		return err
	}
	st, err := sb.LoadState()
	if err != nil {
		return err
	}
	if st.AsInstalled && o.supervisors == 0 {
		if err := sb.InstallAll(ctx); err != nil {
			return err
		}
	}
	if o.supervisors > 0 {
		if err := o.federate(ctx, sb, st); err != nil {
			return err
		}
		if o.externalDNS || st.ExternalDNS != nil {
			defer printExternalDNS(out, sb)
		}
		defer fmt.Fprintf(out, "\nFederation %q: see it with 'antreaplus federation status'.\n", o.federationID)
	}
	if st.AsInstalled {
		if err := sb.RunInstalled(ctx, o.helper); err != nil {
			return err
		}
	}
	if o.cloud {
		if err := startCloud(ctx, sb, o.placement, o.tenancy, o.networks); err != nil {
			return err
		}
		if st.AsInstalled { // the cloud members' cloud controllers
			if err := sb.RunInstalled(ctx, o.helper); err != nil {
				return err
			}
		}
		defer printCloud(out, sb)
	}
	if o.vmAgents {
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
}

// federate forms the federation, then runs the member services and
// ExternalDNS when asked for (or recorded by an earlier run).
func (o *upOptions) federate(ctx context.Context, sb *sandbox.Sandbox, st *sandbox.State) error {
	bin, err := sb.FindBinary(ctx, "federation-manager")
	if err != nil {
		return err
	}
	if o.externalDNS || st.ExternalDNS != nil {
		// In the first supervisor, before its manager starts: the leaders
		// find the DNSEndpoint API at once.
		if err := sb.InstallDNSEndpointCRD(ctx, st.Clusters[0].Name); err != nil {
			return err
		}
	}
	if err := sb.Federate(ctx, sandbox.FederationOptions{
		FederationID: o.federationID, Supervisors: o.supervisors, ManagerBinary: bin, ManagerArgs: o.managerArgs,
	}); err != nil {
		return err
	}
	if o.memberSvcs && !st.AsInstalled {
		if err := startMemberServices(ctx, sb); err != nil {
			return err
		}
	}
	if o.externalDNS || st.ExternalDNS != nil {
		return startExternalDNS(ctx, sb)
	}
	return nil
}
