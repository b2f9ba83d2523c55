package vmsandbox

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

	"antreaplus.io/antreaplus/test/e2e/e2ecli"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/test/framework"
)

// buildIngressPolicy lets only dev-build-1 reach dev-build-2 on TCP 8080:
// the file make demo applies too.
var buildIngressPolicy = filepath.Join("..", "testdata", "demo", "build-2-ingress.yaml")

// TestSandboxVMAgents installs the chart in a federation of two clusters
// and runs every component as its Pod (--as-installed), and plays the local cloud's agented VMs of both clouds,
// AWS imported into member-1 and Azure into member-2, in network
// namespaces on one bridge with real VM agents, each connected to its
// member's policy controller, in a federation whose members run DNS
// servers. It checks with real connections that VMs of both clouds reach
// each other, that an Antrea NetworkPolicy of each member allows one VM
// and blocks another, that up restarts what died, that VMs resolve a
// federated Service's names with their own resolver through their
// member's DNS server, and that down leaves no namespace, link, resolver
// file or process.
func TestSandboxVMAgents(t *testing.T) {
	// Under make test (ANTREAPLUS_REQUIRE_CLUSTERS=1) a machine that cannot
	// play VMs fails the test; elsewhere it is skipped.
	cannot := t.Skipf
	if os.Getenv(framework.RequireEnv) == "1" {
		cannot = t.Fatalf
	}
	if err := sandbox.VMAgentsSupported(); err != nil {
		cannot("sandbox up %v", err)
	}
	c := e2ecli.New(t)
	base, err := sandbox.FreeBase(2)
	if err != nil {
		t.Fatal(err)
	}
	// As installed: the chart in both clusters, each component run as its
	// Pod (the direct way is covered by test/e2e/fedpolicy and make demo).
	up := []string{"sandbox", "up", "--clusters", "2", "--supervisors", "1", "--federation-id", vmFederationID,
		"--cloud", "--vm-agents", "--as-installed", "--api-port-base=" + strconv.Itoa(base)}
	c.MustRun(up...)

	t.Run("every component runs as its Deployment's Pod", func(t *testing.T) {
		testComponentsRunAsPods(t, c.In(t))
	})

	cloud := sandboxCloud(t, c)
	vms := cloud.VMs
	if placement := cloud.Placement; placement.AWS != "member-1" || placement.Azure != "member-2" {
		t.Fatalf("the clouds are imported as %s, want AWS into member-1, Azure into member-2", placement)
	}
	if len(cloud.Members) != 2 || cloud.Members[0].PolicyServer == cloud.Members[1].PolicyServer {
		t.Fatalf("cloud members %+v: want member-1 and member-2, each with a policy controller of its own", cloud.Members)
	}
	var names []string
	for _, vm := range vms {
		names = append(names, vm.Name+"@"+vm.Cluster)
		if _, err := os.Stat(filepath.Join("/run/netns", vm.NetNS)); err != nil {
			t.Errorf("%s: no network namespace %s: %v", vm.Name, vm.NetNS, err)
		}
		if m, _ := cloud.Member(vm.Cluster); vm.PolicyServer != m.PolicyServer {
			t.Errorf("%s: its agent connects to %s, not to its member %s's policy controller %s", vm.Name, vm.PolicyServer, vm.Cluster, m.PolicyServer)
		}
	}
	want := "azure-dev-build-1@member-2,azure-dev-build-2@member-2,azure-dev-build-3@member-2," +
		"dev-build-1@member-1,dev-build-2@member-1,dev-build-3@member-1"
	if got := strings.Join(names, ","); got != want {
		t.Fatalf("played VMs = %s, want the agented VMs of AWS in member-1 and of Azure in member-2:\n%s", got, want)
	}

	t.Run("every agent reported to its VirtualMachine in its member", func(t *testing.T) {
		for _, vm := range vms {
			got := c.In(t).Kubectl("--context", vm.Cluster, "-n", "cloud-demo", "get", "virtualmachine", vm.Object,
				"-o", `jsonpath={.status.agent.version}/{.status.conditions[?(@.type=="AgentConnected")].status}`)
			if !strings.HasSuffix(got, "/True") || strings.HasPrefix(got, "/") {
				t.Errorf("%s (%s in %s): agent version/connected = %q, want a version and True", vm.Name, vm.Object, vm.Cluster, got)
			}
		}
	})

	t.Run("VMs of both clouds reach each other", func(t *testing.T) {
		c := c.In(t)
		for _, p := range [][2]string{{"dev-build-1", "azure-dev-build-1"}, {"azure-dev-build-2", "dev-build-2"}, {"aws-dev-build-3", "azure-dev-build-3"}} {
			c.MustRun("sandbox", "probe", "--from", p[0], "--to", p[1]+":8080", "--expect", "connected")
		}
	})

	agents := vmAgentPids(t, c, vms)
	t.Run("every agent runs as the package's unit runs it", func(t *testing.T) {
		testAgentsRunAsPackaged(t, c.In(t), vms, agents)
	})
	t.Run("up restarts a dead agent and policy controller and keeps the others", func(t *testing.T) {
		c := c.In(t)
		_ = syscall.Kill(agents["dev-build-3"], syscall.SIGKILL)
		pc := serviceOf(t, c, "member-2", "policy-controller")
		_ = syscall.Kill(pc.Pid, syscall.SIGKILL)
		c.MustRun(up...)
		now := vmAgentPids(t, c, vms)
		if now["dev-build-3"] == agents["dev-build-3"] || !sandbox.Alive(now["dev-build-3"]) {
			t.Errorf("the killed agent of dev-build-3 was not restarted: pid %d, before %d", now["dev-build-3"], agents["dev-build-3"])
		}
		if again := serviceOf(t, c, "member-2", "policy-controller"); again.Pid == pc.Pid || !again.Ready {
			t.Errorf("the killed policy controller of member-2 was not restarted: pid %d, before %d (log %s)", again.Pid, pc.Pid, again.Log)
		}
		for _, vm := range vms {
			if vm.Name != "dev-build-3" && now[vm.Name] != agents[vm.Name] {
				t.Errorf("up restarted the running agent of %s: pid %d, before %d", vm.Name, now[vm.Name], agents[vm.Name])
			}
		}
		agents = now
	})

	t.Run("up restarts a dead kwok controller, and a Pod whose IP another holds is given another", func(t *testing.T) {
		testKwokRestartAddresses(t, c.In(t), up)
	})

	t.Run("VMs resolve a federated Service through their member's DNS server", func(t *testing.T) {
		testVMsResolveFederatedNames(t, c.In(t), vms)
	})

	t.Run("a policy allows dev-build-1 and blocks dev-build-3", func(t *testing.T) {
		c := c.In(t)
		c.MustRun("sandbox", "probe", "--from", "dev-build-3", "--to", "dev-build-2:8080", "--expect", "connected")
		policy, err := filepath.Abs(buildIngressPolicy)
		if err != nil {
			t.Fatal(err)
		}
		c.Kubectl("--context", "member-1", "apply", "-f", policy)
		waitProbe(t, c, "dev-build-3", "dev-build-2:8080", "blocked")
		t.Logf("%s", c.MustRun("sandbox", "probe", "--from", "dev-build-1", "--to", "dev-build-2:8080", "--expect", "connected"))
	})

	t.Run("member-2's policy lets only AWS's dev-build-1 reach azure-dev-build-2", func(t *testing.T) {
		c := c.In(t)
		src, _ := agentVMByName(vms, "dev-build-1")
		policy := filepath.Join(t.TempDir(), "policy.yaml")
		if err := os.WriteFile(policy, []byte(strings.ReplaceAll(azureIngressPolicy, "SOURCE", src.IP)), 0o644); err != nil {
			t.Fatal(err)
		}
		c.Kubectl("--context", "member-2", "apply", "-f", policy)
		waitProbe(t, c, "azure-dev-build-1", "azure-dev-build-2:8080", "blocked")
		c.MustRun("sandbox", "probe", "--from", "dev-build-1", "--to", "azure-dev-build-2:8080", "--expect", "connected")
	})

	// Everything that must be gone after down: processes, namespaces, links.
	var pids []int
	for _, s := range sandboxServices(t, c) {
		if strings.HasPrefix(s.Kind, "vm-") {
			pids = append(pids, s.Pid)
		}
	}
	bridgeNS := strings.TrimSuffix(vms[0].NetNS, "-"+vms[0].Name)
	c.MustRun("sandbox", "down")
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
	checkVMResolvConfsGone(t, vms)
	if out := c.MustRun("sandbox", "down"); !strings.Contains(out, "No sandbox") {
		t.Errorf("a second down did not say there is nothing left:\n%s", out)
	}
}

// azureIngressPolicy, in member-2, lets only SOURCE (an AWS VM's address)
// reach azure-dev-build-2 on TCP 8080.
const azureIngressPolicy = `apiVersion: crd.antrea.io/v1beta1
kind: NetworkPolicy
metadata: {name: azure-build-2-ingress, namespace: cloud-demo}
spec:
  priority: 5
  appliedTo:
  - externalEntitySelector:
      matchLabels: {cloud.antreaplus.io/account-name: azure-emulator, tag.cloud.antreaplus.io/Name: dev-build-2}
  ingress:
  - action: Allow
    from: [{ipBlock: {cidr: SOURCE/32}}]
    ports: [{protocol: TCP, port: 8080}]
  - action: Drop
    from: [{ipBlock: {cidr: 0.0.0.0/0}}]
`

// waitProbe waits up to 60 s for a probe from a VM to have the expected
// outcome (connected or blocked).
func waitProbe(t *testing.T, c *e2ecli.CLI, from, to, expect string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := c.Run("sandbox", "probe", "--from", from, "--to", to, "--expect", expect, "--timeout", "1s")
		if err == nil {
			t.Logf("%s", out)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s -> %s is not %s 60s after the policy:\n%s", from, to, expect, out)
		}
		time.Sleep(time.Second)
	}
}

// sandboxCloud is the local cloud of 'sandbox status -o json'.
func sandboxCloud(t *testing.T, c *e2ecli.CLI) *sandbox.CloudState {
	t.Helper()
	var st struct {
		Cloud *sandbox.CloudState `json:"cloud"`
	}
	if err := json.Unmarshal([]byte(c.MustRun("sandbox", "status", "-o", "json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Cloud == nil {
		t.Fatal("sandbox status -o json shows no cloud")
	}
	return st.Cloud
}

// serviceOf is the process of that kind in cluster, from status.
func serviceOf(t *testing.T, c *e2ecli.CLI, cluster, kind string) sandbox.ServiceStatus {
	t.Helper()
	for _, s := range sandboxServices(t, c) {
		if s.Cluster == cluster && s.Kind == kind {
			return s
		}
	}
	t.Fatalf("status lists no %s in %s", kind, cluster)
	return sandbox.ServiceStatus{}
}

// sandboxServices is what 'sandbox status -o json' lists besides clusters.
func sandboxServices(t *testing.T, c *e2ecli.CLI) []sandbox.ServiceStatus {
	t.Helper()
	var st struct {
		Services []sandbox.ServiceStatus `json:"services"`
	}
	if err := json.Unmarshal([]byte(c.MustRun("sandbox", "status", "-o", "json")), &st); err != nil {
		t.Fatal(err)
	}
	return st.Services
}

// vmAgentPids maps each VM to the pid of its agent, from status, which
// lists an agent by its VM's address.
func vmAgentPids(t *testing.T, c *e2ecli.CLI, vms []sandbox.AgentVM) map[string]int {
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

func agentVMByName(vms []sandbox.AgentVM, name string) (sandbox.AgentVM, bool) {
	for _, vm := range vms {
		if vm.Name == name {
			return vm, true
		}
	}
	return sandbox.AgentVM{}, false
}
