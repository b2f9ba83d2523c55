package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
	"antreaplus.io/antreaplus/pkg/scheme"
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

// vmProcesses are the processes that play one VM: its TCP listener, the
// relay to the policy controller, and its agent.
func (s *Sandbox) vmProcesses(vm AgentVM) (listener, relay, agent process) {
	dir := s.VMDir()
	return process{dir: dir, name: vm.Name + ".listener", what: "the TCP listener of " + vm.Name},
		process{dir: dir, name: vm.Name + ".relay", what: "the policy API relay of " + vm.Name},
		process{dir: dir, name: vm.Name + ".vm-agent", what: "the VM agent of " + vm.Name}
}

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

// StartVMAgents plays every agented AWS VM of the local cloud: a network
// namespace on a bridge with the VM's private IP, a TCP echo listener, and
// a vm-agent connected to the policy controller with the VM's token, whose
// nftables rules live in the namespace. It waits for the agents to report.
// Safe to re-run: what runs is kept, what died or lost its network is
// restarted.
func (s *Sandbox) StartVMAgents(ctx context.Context, opts VMAgentOptions) error {
	if err := VMAgentsSupported(); err != nil {
		return err
	}
	st, err := s.LoadState()
	if err != nil {
		return fmt.Errorf("no sandbox: %w", err)
	}
	if st.Cloud == nil {
		return errors.New("--vm-agents needs the local cloud: add --cloud")
	}
	if opts.ListenPort == 0 {
		opts.ListenPort = 8080
	}
	if opts.Timeout == 0 {
		opts.Timeout = 90 * time.Second
	}
	c, err := s.cloudClient(st.Cloud.Cluster)
	if err != nil {
		return err
	}
	base := vmNetNSBase(s.opts.Dir)
	vms, tokens, err := s.waitAgentVMs(ctx, c, st.Cloud.Namespace, base, opts.Timeout)
	if err != nil {
		return err
	}
	for i := range vms {
		vms[i].Port = opts.ListenPort
	}
	if err := s.forgetVMs(vms); err != nil {
		return err
	}
	if err := os.MkdirAll(s.VMDir(), 0o755); err != nil {
		return err
	}
	raw, _ := json.MarshalIndent(vms, "", "  ")
	if err := os.WriteFile(s.vmPlanPath(), raw, 0o644); err != nil {
		return err
	}
	if err := ensureBridge(base); err != nil {
		return fmt.Errorf("creating the VMs' bridge: %w", err)
	}
	for _, vm := range vms {
		if err := s.ensureVM(base, vm, tokens[vm.Name], st.Cloud.Ports.Policy, opts); err != nil {
			return err
		}
	}
	return s.waitAgentsConnected(ctx, c, st.Cloud.Namespace, vms, opts.Timeout)
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
// addresses and the policy controller issued their tokens.
func (s *Sandbox) waitAgentVMs(ctx context.Context, c client.Client, ns, base string, timeout time.Duration) ([]AgentVM, map[string][]byte, error) {
	deadline := time.Now().Add(timeout)
	for {
		vms, tokens, err := agentVMs(ctx, c, ns, base)
		if err == nil {
			return vms, tokens, nil
		}
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("the agented VMs of namespace %s were not ready after %s: %w (see the logs in %s)", ns, timeout, err, s.CloudDir())
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// agentVMs plans the agented VMs and reads their tokens, by VM.
func agentVMs(ctx context.Context, c client.Client, ns, base string) ([]AgentVM, map[string][]byte, error) {
	var vmList cloudv1.VirtualMachineList
	if err := c.List(ctx, &vmList, client.InNamespace(ns)); err != nil {
		return nil, nil, err
	}
	var nics cloudv1.NetworkInterfaceList
	if err := c.List(ctx, &nics, client.InNamespace(ns)); err != nil {
		return nil, nil, err
	}
	vms, err := planVMs(base, vmList.Items, nics.Items)
	if err != nil {
		return nil, nil, err
	}
	if len(vms) == 0 {
		return nil, nil, errors.New("no agented AWS VM is imported yet")
	}
	tokens := map[string][]byte{}
	for _, vm := range vms {
		var sec corev1.Secret
		key := client.ObjectKey{Namespace: ns, Name: agenttoken.SecretName(vm.Object)}
		if err := c.Get(ctx, key, &sec); err != nil {
			return nil, nil, fmt.Errorf("the token of %s: %w", vm.Name, err)
		}
		if len(sec.Data[policydistribution.TokenKey]) == 0 {
			return nil, nil, fmt.Errorf("the Secret %s holds no token yet", key)
		}
		tokens[vm.Name] = sec.Data[policydistribution.TokenKey]
	}
	return vms, tokens, nil
}

// ensureVM wires the VM's namespace unless it is intact (restarting the
// VM's processes if it was not), writes its token, and starts what of its
// processes does not run.
func (s *Sandbox) ensureVM(base string, vm AgentVM, token []byte, policyPort int, opts VMAgentOptions) error {
	listener, relay, agent := s.vmProcesses(vm)
	if !vmWired(base, vm) {
		if err := s.stopVM(vm); err != nil {
			return err
		}
		if err := wireVM(base, vm); err != nil {
			return err
		}
		s.logf("%s: network namespace %s, %s on bridge %s of namespace %s", vm.Name, vm.NetNS, vm.CIDR(), vmBridge, base)
	}
	tokenFile := filepath.Join(s.VMDir(), vm.Name+".token")
	if err := os.WriteFile(tokenFile, token, 0o600); err != nil {
		return err
	}
	listen := "0.0.0.0:" + strconv.Itoa(vm.Port)
	policy := loopback(policyPort)
	steps := []struct {
		p         process
		kind, bin string
		args      []string
	}{
		{listener, "TCP listener on " + listen, "ip", []string{"netns", "exec", vm.NetNS, opts.Helper, "sandbox", "serve-tcp", "--listen", listen}},
		// The agent reaches the policy controller at the address its
		// certificate names, 127.0.0.1, on its own loopback.
		{relay, "relay of " + policy + " to the policy controller", opts.Helper,
			[]string{"sandbox", "serve-tcp", "--netns", vm.NetNS, "--listen", policy, "--forward", policy}},
		{agent, "VM agent", "ip", []string{"netns", "exec", vm.NetNS, opts.Agent, "--server", "https://" + policy,
			"--token-file", tokenFile, "--ca-file", filepath.Join(s.CloudDir(), "policy-certs", "ca.crt"),
			"--state-file", filepath.Join(s.VMDir(), vm.Name+".state.json"), "--report-interval", "15s"}},
	}
	for _, step := range steps {
		pid, started, err := step.p.start(step.bin, step.args...)
		if err != nil {
			return err
		}
		if started {
			s.logf("%s: %s running (pid %d, log %s)", vm.Name, step.kind, pid, step.p.logFile())
		}
	}
	return nil
}

// waitAgentsConnected waits until every VM's status says its agent is
// connected and reported.
func (s *Sandbox) waitAgentsConnected(ctx context.Context, c client.Client, ns string, vms []AgentVM, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var waiting []string
		for _, vm := range vms {
			var obj cloudv1.VirtualMachine
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: vm.Object}, &obj); err != nil || !AgentReported(&obj) {
				waiting = append(waiting, vm.Name)
			}
		}
		if len(waiting) == 0 {
			s.logf("VM agents connected: %s (nftables in their namespaces; try 'antreaplus sandbox probe --from %s --to %s:%d')",
				vmNames(vms), vms[0].Name, vms[len(vms)-1].Name, vms[0].Port)
			return nil
		}
		if time.Now().After(deadline) {
			_, _, agent := s.vmProcesses(findVMOrZero(vms, waiting[0]))
			return fmt.Errorf("the VM agents of %s did not report within %s: see %s", strings.Join(waiting, ", "), timeout, agent.logFile())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// AgentReported is true once a VM's agent is connected and reported.
func AgentReported(vm *cloudv1.VirtualMachine) bool {
	return vm.Status.Agent != nil && meta.IsStatusConditionTrue(vm.Status.Conditions, cloudv1.VMConditionAgentConnected)
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

// stopVM stops the VM's processes and deletes its namespace.
func (s *Sandbox) stopVM(vm AgentVM) error {
	listener, relay, agent := s.vmProcesses(vm)
	return errors.Join(agent.stop(syscall.SIGTERM), relay.stop(syscall.SIGTERM), listener.stop(syscall.SIGTERM), deleteNetNS(vm.NetNS))
}

// forgetVMs tears down the VMs of the previous plan that are not in vms.
func (s *Sandbox) forgetVMs(vms []AgentVM) error {
	prev, _ := s.AgentVMs() // none on a first up
	var errs []error
	for _, old := range prev {
		if !slices.Contains(vms, old) {
			s.logf("%s: no longer planned as it was; stopping it", old.Name)
			errs = append(errs, s.stopVM(old))
		}
	}
	return errors.Join(errs...)
}

// stopVMAgents stops every VM process and deletes the sandbox's network
// namespaces (the VMs', and the bridge's with its veths), whatever is left
// of them.
func (s *Sandbox) stopVMAgents() error {
	var errs []error
	vms, _ := s.AgentVMs()
	for _, vm := range vms { // agents first, their relays and listeners next
		errs = append(errs, s.stopVM(vm))
	}
	for _, name := range processNames(s.VMDir()) {
		p := process{dir: s.VMDir(), name: name, what: name}
		errs = append(errs, p.stop(syscall.SIGTERM))
	}
	for _, ns := range ownedNetNS(vmNetNSBase(s.opts.Dir)) {
		errs = append(errs, deleteNetNS(ns))
	}
	return errors.Join(errs...)
}

// vmServices lists, for Services, each VM's agent, listener and relay.
func (s *Sandbox) vmServices(cluster string) []ServiceStatus {
	vms, err := s.AgentVMs()
	if err != nil {
		return nil
	}
	var out []ServiceStatus
	for _, vm := range vms {
		listener, relay, agent := s.vmProcesses(vm)
		wired := netnsExists(vm.NetNS)
		for _, p := range []struct {
			kind, address string
			p             process
		}{
			{"vm-agent", vm.IP, agent},
			{"vm-listener", net.JoinHostPort(vm.IP, strconv.Itoa(vm.Port)), listener},
			{"vm-relay", vm.Name + " -> policy API", relay},
		} {
			ss := ServiceStatus{Cluster: cluster, Kind: p.kind, Pid: p.p.pid(), Address: p.address, Log: p.p.logFile()}
			ss.Ready = ss.Pid != 0 && wired
			out = append(out, ss)
		}
	}
	return out
}
