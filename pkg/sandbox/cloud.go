package sandbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// CloudOptions shape a sandbox's local cloud.
type CloudOptions struct {
	// Cluster imports both clouds (its context), unless AWSCluster or
	// AzureCluster place one elsewhere. When all three are empty, a re-run
	// keeps the clouds where they are; a first run imports AWS into
	// member-1 and Azure into member-2 (member-1 in a one-cluster sandbox).
	Cluster, AWSCluster, AzureCluster string
	// Emulator and Controller are the cloud-emulator and cloud-controller
	// executables; PolicyController, when set, is run too in every member
	// that imports a cloud, and the cloud controller enforces the policies
	// of agentless VMs with the emulator's security groups.
	Emulator, Controller, PolicyController string
	// Namespace holds the accounts, selectors and imported objects in
	// every member; default cloud-demo.
	Namespace string
	// PollInterval is how often the controller polls the emulator (it
	// overrides the accounts' pollIntervalSeconds, whose minimum is 30).
	PollInterval time.Duration
	// Tenancy adds tenants to the member that imports AWS, each with an
	// AWS account of its own, and runs its cloud controller as two
	// replicas of the shared instance beside a dedicated instance of the
	// hard tenant (PlanTenancy). Recorded: later runs keep it. Not with
	// the as-installed mode.
	Tenancy bool
	// Networks seeds the edge networks (overlapping ranges, a NAT gateway;
	// docs/networks.md), played behind routers by StartVMAgents; their
	// networks are not declared flat. Recorded: later runs keep it.
	Networks bool
}

// CloudState is what the state records of a sandbox's local cloud.
type CloudState struct {
	// Namespace holds the accounts, selectors and imported objects in
	// every member that imports a cloud.
	Namespace string `json:"namespace"`
	// Ports are the emulator's endpoints.
	Ports CloudPorts `json:"ports"`
	// Placement is the member that imports each cloud.
	Placement CloudPlacement `json:"placement"`
	// Members are the members that import a cloud, in cluster order.
	Members []CloudMember `json:"members"`
	// VMs are the agented VMs played with --vm-agents (a copy of
	// vms/vms.json).
	VMs []AgentVM `json:"vms,omitempty"`
	// Routed are the edge networks whose VMs are played behind routers
	// (--networks).
	Routed []RoutedNetwork `json:"routed,omitempty"`
	// Tenancy is set when the sandbox runs tenants (--tenancy).
	Tenancy *TenancyState `json:"tenancy,omitempty"`
	// Networks is set when the emulator seeds the edge networks
	// (--networks).
	Networks bool `json:"networks,omitempty"`
}

// Member returns the cloud member called cluster.
func (c *CloudState) Member(cluster string) (CloudMember, bool) {
	if c != nil {
		for _, m := range c.Members {
			if m.Cluster == cluster {
				return m, true
			}
		}
	}
	return CloudMember{}, false
}

// CloudDir holds the emulator's state (ca.pem, the manifests) and the
// cloud processes' pid files and logs.
func (s *Sandbox) CloudDir() string { return filepath.Join(s.opts.Dir, "cloud") }

func (s *Sandbox) cloudEmulator() process {
	return process{dir: s.CloudDir(), name: "cloud-emulator", what: "the cloud emulator"}
}

// CloudManifests is the file of the namespace, Secrets, accounts and
// selectors of both clouds that point at the emulator.
func (s *Sandbox) CloudManifests() string { return filepath.Join(s.CloudDir(), "cloud.yaml") }

// TenantManifest is the file of a tenant's Secret, account and selector
// that the emulator writes (--tenants): tenant-<namespace>.yaml.
func (s *Sandbox) TenantManifest(namespace string) string {
	return filepath.Join(s.CloudDir(), "tenant-"+namespace+".yaml")
}

// cloudManifest is the file of one cloud's: cloud-aws.yaml, cloud-azure.yaml.
func (s *Sandbox) cloudManifest(cloud cloudv1alpha1.CloudProvider) string {
	return filepath.Join(s.CloudDir(), "cloud-"+strings.ToLower(string(cloud))+".yaml")
}

// StartCloud runs the local cloud: the emulator (AWS and Azure, seeded with
// two VPCs/VNets of VMs each) and, in each member that imports a cloud, the
// policy controller and the cloud controller, and applies that cloud's
// account and selector there. With Tenancy, the member that imports AWS
// also gets the tenants, their accounts and the tenancy cloud controllers.
// Safe to re-run: what died is restarted.
func (s *Sandbox) StartCloud(ctx context.Context, opts CloudOptions) error {
	st, err := s.LoadState()
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	opts.Namespace = cmp.Or(opts.Namespace, "cloud-demo")
	if opts.PollInterval == 0 {
		opts.PollInterval = 10 * time.Second
	}
	clusters := make([]string, len(st.Clusters))
	for i, p := range st.Clusters {
		clusters[i] = p.Name
	}
	var prev CloudState
	if st.Cloud != nil {
		prev = *st.Cloud
	}
	if opts.Tenancy, err = chooseTenancy(opts.Tenancy, st.Cloud); err != nil {
		return err
	}
	opts.Networks = opts.Networks || prev.Networks
	if opts.Tenancy && st.AsInstalled {
		return errors.New("--tenancy runs the cloud controllers as local processes: the as-installed sandbox runs the chart's (one instance)")
	}
	placement, err := choosePlacement(CloudPlacement{Cluster: opts.Cluster, AWS: opts.AWSCluster, Azure: opts.AzureCluster}, prev.Members, clusters)
	if err != nil {
		return err
	}
	base := st.Clusters[0].APIServerPort
	placement, members, err := PlanCloudMembers(clusters, placement, base)
	if err != nil {
		return err
	}
	var ten *TenancyState
	if opts.Tenancy {
		m, err := tenancyMember(members)
		if err != nil {
			return err
		}
		t := PlanTenancy(base, m)
		ten = &t
	}
	ports := PlanCloud(base)
	if err := s.startEmulator(ctx, opts, ports, ten.TenantNamespaces()); err != nil {
		return err
	}
	if _, err := s.tools(ctx); err != nil { // once, before the members use them
		return err
	}
	errs := make([]error, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		if st.AsInstalled {
			errs[i] = s.installCloudMember(ctx, st, opts, m)
			continue
		}
		var mt *TenancyState
		if ten != nil && ten.Cluster == m.Cluster {
			mt = ten
		}
		wg.Go(func() { errs[i] = s.startCloudMember(ctx, opts, m, mt) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	st.Cloud = &CloudState{Namespace: opts.Namespace, Ports: ports, Placement: placement, Members: members, VMs: prev.VMs, Routed: prev.Routed,
		Tenancy: ten, Networks: opts.Networks}
	return s.saveState(st)
}

// startEmulator runs the emulator unless it runs, with an AWS account for
// each of tenants, and waits for its manifests.
func (s *Sandbox) startEmulator(ctx context.Context, opts CloudOptions, ports CloudPorts, tenants []string) error {
	emu := s.cloudEmulator()
	if emu.pid() == 0 {
		for _, port := range []int{ports.AWS, ports.Azure} {
			if err := checkPortFree(port); err != nil {
				return fmt.Errorf("the cloud emulator: %w", err)
			}
		}
		// cloud.yaml is written last, once the endpoints listen: a fresh one says the emulator is up.
		_ = os.Remove(s.CloudManifests())
		args := []string{"--aws-addr", loopback(ports.AWS), "--azure-addr", loopback(ports.Azure),
			"--state-dir", s.CloudDir(), "--namespace", opts.Namespace}
		if len(tenants) > 0 {
			args = append(args, "--tenants", strings.Join(tenants, ","))
		}
		if opts.Networks {
			args = append(args, "--edge")
		}
		pid, _, err := emu.start(opts.Emulator, args...)
		if err != nil {
			return err
		}
		if err := waitFile(ctx, s.CloudManifests(), 30*time.Second); err != nil {
			return fmt.Errorf("the cloud emulator did not come up (%w): see %s", err, emu.logFile())
		}
		s.logf("cloud emulator: AWS on %s, Azure on %s (pid %d, log %s)", loopback(ports.AWS), loopback(ports.Azure), pid, emu.logFile())
	}
	files := make([]string, 0, len(emulatorClouds)+len(tenants))
	for _, cloud := range emulatorClouds {
		files = append(files, s.cloudManifest(cloud))
	}
	for _, t := range tenants {
		files = append(files, s.TenantManifest(t))
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("the cloud emulator wrote no %s (an older build?): run 'antreaplus sandbox down' and 'up' again: %w", f, err)
		}
	}
	return nil
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// waitFile waits until path exists.
func waitFile(ctx context.Context, path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not written after %s", path, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
