package vmsandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/test/e2e/e2ecli"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/vmagent/dnsforward"
	"antreaplus.io/antreaplus/test/framework"
)

// vmFederationID is the federation of TestSandboxVMAgents.
const vmFederationID = "e2e-vms"

// testVMsResolveFederatedNames exports a NodePort Service from member-1
// and checks that VMs of both members resolve its clusterset.local and
// federation names with the system's resolver, run in their namespaces:
// getent (glibc, as every program does) and, when installed, a plain dig
// (UDP, the resolver file's first nameserver). Neither is told a server:
// each reads the VM's /etc/resolv.conf, which its agent pointed at its
// forwarder, with nobody configuring the VM by hand.
func testVMsResolveFederatedNames(t *testing.T, c *e2ecli.CLI, vms []sandbox.AgentVM) { //nolint:thelper // the body of a subtest, not a helper: failures report their own lines
	for _, m := range []string{"member-1", "member-2"} {
		c.Kubectl("--context", m, "create", "namespace", "shop")
	}
	c.Kubectl("--context", "member-1", "-n", "shop", "create", "service", "nodeport", "web", "--tcp=80:8080", "--node-port=31080")
	c.MustRun("service", "export", "web", "-n", "shop", "--context", "member-1", "--kubeconfig="+filepath.Join(c.Dir, "kubeconfig"))

	for _, name := range []string{"dev-build-3", "azure-dev-build-1"} { // dev-build-3's agent was restarted
		vm, ok := agentVMByName(vms, name)
		if !ok {
			t.Fatalf("no VM %s", name)
		}
		conf, err := os.ReadFile(filepath.Join("/etc/netns", vm.NetNS, "resolv.conf"))
		if err != nil || !dnsforward.Managed(conf) {
			t.Errorf("%s: the namespace's resolv.conf is not the agent's (%v):\n%s", name, err, conf)
		}
		for _, q := range []string{"web.shop.svc.clusterset.local", "web.shop." + vmFederationID + ".svc.cluster.local"} {
			var ips []string
			framework.Eventually(t, 90*time.Second, func() error {
				ips = nil
				want := c.Kubectl("--context", vm.Cluster, "-n", "shop", "get", "serviceimports.multicluster.x-k8s.io", "web",
					"--ignore-not-found", "-o", "jsonpath={.spec.ips[0]}")
				if want == "" {
					return fmt.Errorf("%s has no ServiceImport shop/web with an IP yet", vm.Cluster)
				}
				if ips, err = getentInVM(vm.NetNS, q); err != nil {
					return fmt.Errorf("%s: getent ahostsv4 %s: %w", name, q, err)
				}
				if !slices.Equal(ips, []string{want}) {
					return fmt.Errorf("%s: getent ahostsv4 %s = %v, want the cluster-set IP %s", name, q, ips, want)
				}
				return nil
			})
			t.Logf("%s (%s): %s -> %v", name, vm.Cluster, q, ips)
			if _, err := exec.LookPath("dig"); err != nil {
				continue // getent is the system resolver; dig shows the wire
			}
			if got, err := digInVM(vm.NetNS, q); err != nil || !slices.Equal(got, ips) {
				t.Errorf("%s: dig %s = %v (%v), want %v as getent", name, q, got, err, ips)
			}
		}
	}
}

// getentInVM resolves name with glibc's resolver in a VM's namespace.
func getentInVM(netns, name string) ([]string, error) {
	out, err := exec.Command("ip", "netns", "exec", netns, "getent", "ahostsv4", name).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, out)
	}
	var ips []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) > 0 && !slices.Contains(ips, f[0]) {
			ips = append(ips, f[0])
		}
	}
	slices.Sort(ips)
	return ips, nil
}

// digInVM asks for name's A records with dig, over UDP, in a VM's
// namespace, from the resolver file's nameserver.
func digInVM(netns, name string) ([]string, error) {
	out, err := exec.Command("ip", "netns", "exec", netns, "dig", "+short", "+time=3", "+tries=1", name, "A").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, out)
	}
	ips := strings.Fields(string(out))
	slices.Sort(ips)
	return ips, nil
}

// checkVMResolvConfsGone fails for a namespace resolv.conf left after down.
func checkVMResolvConfsGone(t *testing.T, vms []sandbox.AgentVM) {
	t.Helper()
	for _, vm := range vms {
		if _, err := os.Stat(filepath.Join("/etc/netns", vm.NetNS)); err == nil {
			t.Errorf("/etc/netns/%s of %s survived down", vm.NetNS, vm.Name)
		}
	}
}
