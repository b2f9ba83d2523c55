package sandbox

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// vmProcesses are the processes that play one VM: its TCP listener, the
// relay to the policy controller, and its agent.
func (s *Sandbox) vmProcesses(vm AgentVM) (listener, relay, agent process) {
	dir := s.VMDir()
	return process{dir: dir, name: vm.Name + ".listener", what: "the TCP listener of " + vm.Name},
		process{dir: dir, name: vm.Name + ".relay", what: "the policy API relay of " + vm.Name},
		process{dir: dir, name: vm.Name + ".vm-agent", what: "the VM agent of " + vm.Name}
}

// ensureVM wires the VM's namespace unless it is intact (restarting the
// VM's processes if it was not), writes its token, and starts what of its
// processes does not run.
func (s *Sandbox) ensureVM(base string, vm AgentVM, token []byte, opts VMAgentOptions) error {
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
	policy := strings.TrimPrefix(vm.PolicyServer, "https://")
	steps := []struct {
		p         process
		kind, bin string
		args      []string
	}{
		{listener, "TCP listener on " + listen, "ip", []string{"netns", "exec", vm.NetNS, opts.Helper, "sandbox", "serve-tcp", "--listen", listen}},
		// The agent reaches the policy controller at the address its
		// certificate names, 127.0.0.1, on its own loopback.
		{relay, "relay of " + policy + " to the policy controller of " + vm.Cluster, opts.Helper,
			[]string{"sandbox", "serve-tcp", "--netns", vm.NetNS, "--listen", policy, "--forward", policy}},
		{agent, "VM agent (" + vm.Cluster + "'s policy controller)", "ip", []string{"netns", "exec", vm.NetNS, opts.Agent, "--server", "https://" + policy,
			"--token-file", tokenFile, "--ca-file", filepath.Join(s.PolicyCertDir(vm.Cluster), "ca.crt"),
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

// vmServices lists, for Services, the agent, listener and relay of each
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
		listener, relay, agent := s.vmProcesses(vm)
		wired := netnsExists(vm.NetNS)
		for _, p := range []struct {
			kind, address string
			p             process
		}{
			{"vm-agent", vm.IP, agent},
			{"vm-listener", net.JoinHostPort(vm.IP, strconv.Itoa(vm.Port)), listener},
			{"vm-relay", vm.Name + " -> " + vm.PolicyServer, relay},
		} {
			ss := ServiceStatus{Cluster: cluster, Kind: p.kind, Pid: p.p.pid(), Address: p.address, Log: p.p.logFile()}
			ss.Ready = ss.Pid != 0 && wired
			out = append(out, ss)
		}
	}
	return out
}
