package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
)

// VMAgentOptions shape StartVMAgents.
type VMAgentOptions struct {
	// Agent is the vm-agent executable; Helper the antreaplus executable,
	// run as 'antreaplus sandbox serve-tcp' for each VM's listener and relay.
	Agent, Helper string
	// ListenPort is the port of each VM's TCP listener; default 8080.
	ListenPort int
	// Timeout bounds the waits for the VMs to be imported and for their
	// agents to connect; default 90 s.
	Timeout time.Duration
}

// VMDir holds the plan of the agented VMs (vms.json), their tokens, agent
// state files, and the pid files and logs of their processes.
func (s *Sandbox) VMDir() string { return filepath.Join(s.opts.Dir, "vms") }

func (s *Sandbox) vmPlanPath() string { return filepath.Join(s.VMDir(), "vms.json") }

// AgentVMs returns the VMs StartVMAgents plays; os.ErrNotExist when none.
func (s *Sandbox) AgentVMs() ([]AgentVM, error) {
	raw, err := os.ReadFile(s.vmPlanPath())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("the sandbox plays no VMs: run 'antreaplus sandbox up --cloud --vm-agents' (%w)", err)
		}
		return nil, err
	}
	var vms []AgentVM
	if err := json.Unmarshal(raw, &vms); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.vmPlanPath(), err)
	}
	return vms, nil
}

// StartVMAgents plays every agented VM of the local cloud, of both
// clouds: a network namespace on one bridge with the VM's private IP, a
// TCP echo listener, and a vm-agent connected, with the VM's token, to the
// policy controller of the member that imports the VM, whose nftables
// rules live in the namespace. It waits for the agents to report. Safe to
// re-run: what runs is kept, what died or lost its network is restarted.
func (s *Sandbox) StartVMAgents(ctx context.Context, opts VMAgentOptions) error {
	if err := VMAgentsSupported(); err != nil {
		return err
	}
	st, err := s.LoadState()
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	if st.Cloud == nil || len(st.Cloud.Members) == 0 {
		return errors.New("--vm-agents needs the local cloud: add --cloud")
	}
	if opts.ListenPort == 0 {
		opts.ListenPort = 8080
	}
	if opts.Timeout == 0 {
		opts.Timeout = 90 * time.Second
	}
	clients := map[string]client.Client{}
	for _, m := range st.Cloud.Members {
		if clients[m.Cluster], err = s.cloudClient(m.Cluster); err != nil {
			return err
		}
	}
	base := vmNetNSBase(s.opts.Dir)
	vms, routed, tokens, err := s.waitAgentVMs(ctx, clients, st.Cloud, base, opts.Timeout)
	if err != nil {
		return err
	}
	for i := range vms {
		vms[i].Port = opts.ListenPort
	}
	if err := s.forgetVMs(vms); err != nil {
		return err
	}
	if err := s.saveVMPlan(st, vms, routed); err != nil {
		return err
	}
	if err := ensureBridge(base); err != nil {
		return fmt.Errorf("creating the VMs' bridge: %w", err)
	}
	// The bridge's VMs reach each other: their networks are flat, and the
	// sandbox says so in the members' Networks (the VMs imported, their
	// Networks are written).
	if err := s.declareFlatNetworks(ctx, st.Cloud.Members); err != nil {
		return err
	}
	if err := s.ensureRouters(base, routed); err != nil {
		return err
	}
	for _, vm := range vms {
		if err := s.ensureVM(base, vm, routed, tokens[vm.Name], opts); err != nil {
			return err
		}
	}
	return s.waitAgentsConnected(ctx, clients, st.Cloud.Namespace, vms, opts.Timeout)
}

// ensureRouters plays the routed networks: the internet namespace, and
// each network's router, recreated when it is not intact, its routes and
// NAT rules applied again (a NAT gateway's address may have changed).
func (s *Sandbox) ensureRouters(base string, routed []RoutedNetwork) error {
	if len(routed) == 0 {
		return nil
	}
	if err := ensureInternet(base); err != nil {
		return fmt.Errorf("creating the internet namespace: %w", err)
	}
	for _, r := range routed {
		if !routerIntact(r) {
			if err := createRouter(base, r); err != nil {
				return err
			}
		}
		if err := configureRouter(base, r); err != nil {
			return err
		}
		s.logf("network %s: router %s, gateway %s, NAT %v, public %v", r.Name, r.NetNS, r.Gateway, r.NAT, r.Public)
	}
	return nil
}

// saveVMPlan writes the plan to vms.json and the sandbox state.
func (s *Sandbox) saveVMPlan(st *State, vms []AgentVM, routed []RoutedNetwork) error {
	if err := os.MkdirAll(s.VMDir(), 0o755); err != nil {
		return err
	}
	raw, _ := json.MarshalIndent(vms, "", "  ")
	if err := os.WriteFile(s.vmPlanPath(), raw, 0o644); err != nil {
		return err
	}
	st.Cloud.VMs, st.Cloud.Routed = vms, routed
	return s.saveState(st)
}

func (s *Sandbox) cloudClient(cluster string) (client.Client, error) {
	cfg, err := s.restConfig(cluster)
	if err != nil {
		return nil, err
	}
	sch, err := scheme.New()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: sch})
}

// waitAgentVMs waits until the agented VMs are imported with their
// addresses into every cloud member and its policy controller issued
// their tokens.
func (s *Sandbox) waitAgentVMs(ctx context.Context, clients map[string]client.Client, cloud *CloudState, base string, timeout time.Duration) ([]AgentVM, []RoutedNetwork, map[string][]byte, error) {
	deadline := time.Now().Add(timeout)
	for {
		vms, routed, tokens, err := agentVMs(ctx, clients, cloud, base)
		if err == nil {
			return vms, routed, tokens, nil
		}
		if time.Now().After(deadline) {
			return nil, nil, nil, fmt.Errorf("the agented VMs of namespace %s were not ready after %s: %w (see the logs in %s)", cloud.Namespace, timeout, err, s.CloudDir())
		}
		select {
		case <-ctx.Done():
			return nil, nil, nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// agentVMs plans the agented VMs of every cloud member and reads their
// tokens, by VM.
func agentVMs(ctx context.Context, clients map[string]client.Client, cloud *CloudState, base string) ([]AgentVM, []RoutedNetwork, map[string][]byte, error) {
	var invs []vmInventory
	for _, m := range cloud.Members {
		inv := vmInventory{member: m}
		var vmList cloudv1alpha1.VirtualMachineList
		if err := clients[m.Cluster].List(ctx, &vmList, client.InNamespace(cloud.Namespace)); err != nil {
			return nil, nil, nil, fmt.Errorf("listing the VMs of %s: %w", m.Cluster, err)
		}
		var nics cloudv1alpha1.NetworkInterfaceList
		if err := clients[m.Cluster].List(ctx, &nics, client.InNamespace(cloud.Namespace)); err != nil {
			return nil, nil, nil, fmt.Errorf("listing the interfaces of %s: %w", m.Cluster, err)
		}
		inv.vms, inv.nics = vmList.Items, nics.Items
		invs = append(invs, inv)
	}
	vms, err := planVMs(base, invs)
	routed := planRouted(base, vms, invs)
	if err != nil {
		return nil, nil, nil, err
	}
	tokens := map[string][]byte{}
	for _, vm := range vms {
		var sec corev1.Secret
		key := client.ObjectKey{Namespace: cloud.Namespace, Name: agenttoken.SecretName(vm.Object)}
		if err := clients[vm.Cluster].Get(ctx, key, &sec); err != nil {
			return nil, nil, nil, fmt.Errorf("the token of %s in %s: %w", vm.Name, vm.Cluster, err)
		}
		if len(sec.Data[policyv1alpha1.TokenSecretKey]) == 0 {
			return nil, nil, nil, fmt.Errorf("the Secret %s of %s holds no token yet", key, vm.Cluster)
		}
		tokens[vm.Name] = sec.Data[policyv1alpha1.TokenSecretKey]
	}
	return vms, routed, tokens, nil
}

// waitAgentsConnected waits until every VM's status, in the member that
// imports it, says its agent is connected and reported.
func (s *Sandbox) waitAgentsConnected(ctx context.Context, clients map[string]client.Client, ns string, vms []AgentVM, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var waiting []string
		for _, vm := range vms {
			var obj cloudv1alpha1.VirtualMachine
			if err := clients[vm.Cluster].Get(ctx, client.ObjectKey{Namespace: ns, Name: vm.Object}, &obj); err != nil || !AgentReported(&obj) {
				waiting = append(waiting, vm.Name)
			}
		}
		if len(waiting) == 0 {
			s.logf("VM agents connected: %s (nftables in their namespaces; try 'antreaplus sandbox probe --from %s --to %s:%d')",
				vmNames(vms), vms[0].Name, vms[len(vms)-1].Name, vms[0].Port)
			return nil
		}
		if time.Now().After(deadline) {
			agent := s.vmProcesses(findVMOrZero(vms, waiting[0])).agent
			return fmt.Errorf("the VM agents of %s did not report within %s: see %s", strings.Join(waiting, ", "), timeout, agent.logFile())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// memberDNS is the address of a member's DNS server when the sandbox runs
// one (a federation with member services, which wrote its Corefile), else
// empty. The member's policy controller tells VM agents this address
// (--dns-server), and each VM's namespace relays it, on its own loopback,
// to the server.
func (s *Sandbox) memberDNS(cluster string) string {
	st, err := s.LoadState()
	if err != nil || st.FederationID == "" {
		return ""
	}
	if _, err := os.Stat(s.Corefile(cluster)); err != nil {
		return ""
	}
	for _, p := range st.Clusters {
		if p.Name == cluster && p.DNS.Port != 0 {
			return p.DNS.Endpoint()
		}
	}
	return ""
}

// AgentReported is true once a VM's agent is connected and reported.
func AgentReported(vm *cloudv1alpha1.VirtualMachine) bool {
	return vm.Status.Agent != nil && meta.IsStatusConditionTrue(vm.Status.Conditions, cloudv1alpha1.VMConditionAgentConnected)
}

func findVMOrZero(vms []AgentVM, name string) AgentVM {
	vm, _ := findVM(vms, name)
	return vm
}

func vmNames(vms []AgentVM) string {
	names := make([]string, 0, len(vms))
	for _, v := range vms {
		names = append(names, v.Name)
	}
	return strings.Join(names, ", ")
}
