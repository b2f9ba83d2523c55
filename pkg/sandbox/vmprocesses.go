package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"antreaplus.io/antreaplus/internal/netns"
)

// vmProcs are the processes that play one VM: its TCP listener, the
// relays to the policy controller and to the member's DNS server, and its
// agent.
type vmProcs struct {
	listener, relay, dnsRelay, agent process
}

func (s *Sandbox) vmProcesses(vm AgentVM) vmProcs {
	dir := s.VMDir()
	return vmProcs{
		listener: process{dir: dir, name: vm.Name + ".listener", what: "the TCP listener of " + vm.Name},
		relay:    process{dir: dir, name: vm.Name + ".relay", what: "the policy API relay of " + vm.Name},
		dnsRelay: process{dir: dir, name: vm.Name + ".dns-relay", what: "the DNS relay of " + vm.Name},
		agent:    process{dir: dir, name: vm.Name + ".vm-agent", what: "the VM agent of " + vm.Name},
	}
}

// vmStep is one process of a VM to start.
type vmStep struct {
	p         process
	kind, bin string
	args      []string
}

// ensureVM wires the VM's namespace unless it is intact (restarting the
// VM's processes if it was not), writes its token and its resolver file,
// and starts what of its processes does not run.
func (s *Sandbox) ensureVM(base string, vm AgentVM, routed []RoutedNetwork, token []byte, opts VMAgentOptions) error {
	procs := s.vmProcesses(vm)
	link := vmLink(base, vm, routed)
	if !vmWired(link, vm) {
		if err := s.stopVM(vm); err != nil {
			return err
		}
		if err := wireVM(link, vm); err != nil {
			return err
		}
		s.logf("%s: network namespace %s, %s on bridge %s of namespace %s", vm.Name, vm.NetNS, vm.CIDR(), vmBridge, link)
	}
	tokenFile := filepath.Join(s.VMDir(), vm.Name+".token")
	if err := os.WriteFile(tokenFile, token, 0o600); err != nil {
		return err
	}
	// The agent rewrites its /etc/resolv.conf: the VM's own, never the host's.
	if err := ensureVMResolvConf(vm.NetNS); err != nil {
		return fmt.Errorf("%s: %w", vm.Name, err)
	}
	listen := "0.0.0.0:" + strconv.Itoa(vm.Port)
	policy := strings.TrimPrefix(vm.PolicyServer, "https://")
	steps := []vmStep{
		{procs.listener, "TCP listener on " + listen, "ip", []string{"netns", "exec", vm.NetNS, opts.Helper, "sandbox", "serve-tcp", "--listen", listen}},
		// The agent reaches the policy controller at the address its
		// certificate names, 127.0.0.1, on its own loopback.
		{procs.relay, "relay of " + policy + " to the policy controller of " + vm.Cluster, opts.Helper,
			[]string{"sandbox", "serve-tcp", "--netns", vm.NetNS, "--listen", policy, "--forward", policy}},
	}
	// The agent's DNS forwarder reaches the member's DNS server, over TCP,
	// at the address the policy controller gives (--dns-server), on its
	// own loopback.
	if dns := s.memberDNS(vm.Cluster); dns != "" {
		steps = append(steps, vmStep{procs.dnsRelay, "relay of " + dns + " to the DNS server of " + vm.Cluster, opts.Helper,
			[]string{"sandbox", "serve-tcp", "--netns", vm.NetNS, "--listen", dns, "--forward", dns}})
	}
	// The agent runs as the package's unit runs it (deploy/vm-agent), with
	// an env file of the VM's.
	agent, err := s.writeVMAgentEnv(vm, vmAgentFiles{server: "https://" + policy, token: tokenFile,
		ca: filepath.Join(s.PolicyCertDir(vm.Cluster), "ca.crt"), state: filepath.Join(s.VMDir(), vm.Name+".state.json")}, opts.Agent)
	if err != nil {
		return fmt.Errorf("%s: %w", vm.Name, err)
	}
	steps = append(steps, vmStep{procs.agent, "VM agent (" + vm.Cluster + "'s policy controller)", "ip",
		append([]string{"netns", "exec", vm.NetNS}, agent...)})
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

// netnsEtcDir holds what "ip netns exec" mounts over /etc for the commands
// it runs in a namespace, such as the namespace's resolv.conf.
const netnsEtcDir = "/etc/netns"

// ensureVMResolvConf gives a VM's namespace a resolv.conf of its own, a
// copy of the host's, unless it has one: the agent points it at its DNS
// forwarder, rewriting it in place (ip netns exec bind-mounts it over
// /etc/resolv.conf).
func ensureVMResolvConf(netns string) error {
	dir := filepath.Join(netnsEtcDir, netns)
	path := filepath.Join(dir, "resolv.conf")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	host, err := os.ReadFile("/etc/resolv.conf")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reading the host's resolv.conf: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the namespace's resolv.conf: %w", err)
	}
	return os.WriteFile(path, host, 0o644)
}

// removeVMResolvConf removes what ensureVMResolvConf made.
func removeVMResolvConf(netns string) error {
	return os.RemoveAll(filepath.Join(netnsEtcDir, netns))
}

// stopVM stops the VM's processes and deletes its namespace.
func (s *Sandbox) stopVM(vm AgentVM) error {
	p := s.vmProcesses(vm)
	return errors.Join(p.agent.stop(syscall.SIGTERM), p.dnsRelay.stop(syscall.SIGTERM), p.relay.stop(syscall.SIGTERM),
		p.listener.stop(syscall.SIGTERM), deleteNetNS(vm.NetNS), removeVMResolvConf(vm.NetNS))
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
		errs = append(errs, deleteNetNS(ns), removeVMResolvConf(ns))
	}
	return errors.Join(errs...)
}

// vmService is one process of a VM as status lists it.
type vmService struct {
	kind, address string
	p             process
}

// vmServices lists, for Services, the agent, listener and relays of each
// VM that cluster imports.
func (s *Sandbox) vmServices(cluster string) []ServiceStatus {
	vms, err := s.AgentVMs()
	if err != nil {
		return nil
	}
	var out []ServiceStatus
	for _, vm := range vms {
		if vm.Cluster != cluster {
			continue
		}
		procs := s.vmProcesses(vm)
		wired := netns.Exists(vm.NetNS)
		list := []vmService{
			{"vm-agent", vm.IP, procs.agent},
			{"vm-listener", net.JoinHostPort(vm.IP, strconv.Itoa(vm.Port)), procs.listener},
			{"vm-relay", vm.Name + " -> " + vm.PolicyServer, procs.relay},
		}
		if dns := s.memberDNS(cluster); dns != "" {
			list = append(list, vmService{"vm-dns-relay", vm.Name + " -> " + dns, procs.dnsRelay})
		}
		for _, p := range list {
			ss := ServiceStatus{Cluster: cluster, Kind: p.kind, Pid: p.p.pid(), Address: p.address, Log: p.p.logFile()}
			ss.Ready = ss.Pid != 0 && wired
			out = append(out, ss)
		}
	}
	return out
}
