package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

// buildIngressPolicy lets only dev-build-1 reach dev-build-2 on TCP 8080.
const buildIngressPolicy = `apiVersion: crd.antrea.io/v1beta1
kind: NetworkPolicy
metadata: {name: build-2-ingress, namespace: cloud-demo}
spec:
  priority: 5
  appliedTo:
  - externalEntitySelector:
      matchLabels: {cloud.antreaplus.io/account-name: aws-emulator, tag.cloud.antreaplus.io/Name: dev-build-2}
  ingress:
  - action: Allow
    from:
    - externalEntitySelector:
        matchLabels: {cloud.antreaplus.io/account-name: aws-emulator, tag.cloud.antreaplus.io/Name: dev-build-1}
    ports: [{protocol: TCP, port: 8080}]
  - action: Drop
    from: [{ipBlock: {cidr: 0.0.0.0/0}}]
`

// TestSandboxVMAgents plays the local cloud's agented VMs in network
// namespaces with real VM agents, and checks with real connections that an
// Antrea NetworkPolicy allows one VM and blocks another; down leaves no
// namespace, link or process.
func TestSandboxVMAgents(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("sandbox up --vm-agents needs root: it creates network namespaces and programs nftables")
	}
	for _, prog := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is missing: run hack/ensure-packages.sh nftables iproute2", prog)
		}
	}
	c := newCLI(t)
	base, err := sandbox.FreeBase(1)
	if err != nil {
		t.Fatal(err)
	}
	up := []string{"sandbox", "up", "--clusters", "1", "--cloud", "--vm-agents", "--api-port-base=" + strconv.Itoa(base)}
	c.mustRun(up...)

	vms, err := sandbox.New(sandbox.Options{Dir: c.dir}).AgentVMs()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, vm := range vms {
		names = append(names, vm.Name)
		if _, err := os.Stat(filepath.Join("/run/netns", vm.NetNS)); err != nil {
			t.Errorf("%s: no network namespace %s: %v", vm.Name, vm.NetNS, err)
		}
	}
	if got := strings.Join(names, ","); got != "dev-build-1,dev-build-2,dev-build-3" {
		t.Fatalf("played VMs = %s, want the agented AWS VMs dev-build-1..3", got)
	}

	t.Run("every agent reported to its VirtualMachine", func(t *testing.T) {
		for _, vm := range vms {
			got := c.in(t).kubectl("--context", "member-1", "-n", "cloud-demo", "get", "virtualmachine", vm.Object,
				"-o", `jsonpath={.status.agent.version}/{.status.conditions[?(@.type=="AgentConnected")].status}`)
			if !strings.HasSuffix(got, "/True") || strings.HasPrefix(got, "/") {
				t.Errorf("%s (%s): agent version/connected = %q, want a version and True", vm.Name, vm.Object, got)
			}
		}
	})

	agents := vmAgentPids(t, c, vms)
	t.Run("up restarts a dead agent and keeps the others", func(t *testing.T) {
		c := c.in(t)
		_ = syscall.Kill(agents["dev-build-3"], syscall.SIGKILL)
		c.mustRun(up...)
		now := vmAgentPids(t, c, vms)
		if now["dev-build-3"] == agents["dev-build-3"] || !sandbox.Alive(now["dev-build-3"]) {
			t.Errorf("the killed agent of dev-build-3 was not restarted: pid %d, before %d", now["dev-build-3"], agents["dev-build-3"])
		}
		for _, vm := range []string{"dev-build-1", "dev-build-2"} {
			if now[vm] != agents[vm] {
				t.Errorf("up restarted the running agent of %s: pid %d, before %d", vm, now[vm], agents[vm])
			}
		}
		agents = now
	})

	t.Run("a policy allows dev-build-1 and blocks dev-build-3", func(t *testing.T) {
		c := c.in(t)
		c.mustRun("sandbox", "probe", "--from", "dev-build-3", "--to", "dev-build-2:8080", "--expect", "connected")
		policy := filepath.Join(t.TempDir(), "policy.yaml")
		if err := os.WriteFile(policy, []byte(buildIngressPolicy), 0o644); err != nil {
			t.Fatal(err)
		}
		c.kubectl("--context", "member-1", "apply", "-f", policy)
		var out string
		deadline := time.Now().Add(60 * time.Second)
		for {
			if out, err = c.run("sandbox", "probe", "--from", "dev-build-3", "--to", "dev-build-2:8080", "--expect", "blocked", "--timeout", "1s"); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("dev-build-3 still reaches dev-build-2:8080 60s after the policy:\n%s", out)
			}
			time.Sleep(time.Second)
		}
		t.Logf("%s", out)
		t.Logf("%s", c.mustRun("sandbox", "probe", "--from", "dev-build-1", "--to", "dev-build-2:8080", "--expect", "connected"))
	})

	// Everything that must be gone after down: processes, namespaces, links.
	var pids []int
	for _, s := range sandboxServices(t, c) {
		if strings.HasPrefix(s.Kind, "vm-") {
			pids = append(pids, s.Pid)
		}
	}
	bridgeNS := strings.TrimSuffix(vms[0].NetNS, "-"+vms[0].Name)
	c.mustRun("sandbox", "down")
	for _, pid := range pids {
		if sandbox.Alive(pid) {
			t.Errorf("process %d of a VM survived down", pid)
		}
	}
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		if e.Name() == bridgeNS || strings.HasPrefix(e.Name(), bridgeNS+"-") {
			t.Errorf("network namespace %s survived down", e.Name())
		}
	}
	links, _ := exec.Command("ip", "-o", "link", "show").Output()
	for _, vm := range vms {
		if strings.Contains(string(links), " "+vm.Veth+"@") || strings.Contains(string(links), " "+vm.Veth+":") {
			t.Errorf("link %s of %s is left in the host:\n%s", vm.Veth, vm.Name, links)
		}
	}
	if out := c.mustRun("sandbox", "down"); !strings.Contains(out, "No sandbox") {
		t.Errorf("a second down did not say there is nothing left:\n%s", out)
	}
}

// sandboxServices is what 'sandbox status -o json' lists besides clusters.
func sandboxServices(t *testing.T, c *cli) []sandbox.ServiceStatus {
	t.Helper()
	var st struct {
		Services []sandbox.ServiceStatus `json:"services"`
	}
	if err := json.Unmarshal([]byte(c.mustRun("sandbox", "status", "-o", "json")), &st); err != nil {
		t.Fatal(err)
	}
	return st.Services
}

// vmAgentPids maps each VM to the pid of its agent, from status, which
// lists an agent by its VM's address.
func vmAgentPids(t *testing.T, c *cli, vms []sandbox.AgentVM) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, s := range sandboxServices(t, c) {
		if vm, ok := agentVMByIP(vms, s.Address); ok && s.Kind == "vm-agent" {
			if !s.Ready {
				t.Errorf("status: the agent of %s is not ready (log %s)", vm.Name, s.Log)
			}
			out[vm.Name] = s.Pid
		}
	}
	if len(out) != len(vms) {
		t.Fatalf("status lists %d VM agents, want %d: %v", len(out), len(vms), out)
	}
	return out
}

func agentVMByIP(vms []sandbox.AgentVM, ip string) (sandbox.AgentVM, bool) {
	for _, vm := range vms {
		if vm.IP == ip {
			return vm, true
		}
	}
	return sandbox.AgentVM{}, false
}
