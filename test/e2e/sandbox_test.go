package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"antreaplus.io/antreaplus/test/e2e/e2ecli"

	"antreaplus.io/antreaplus/pkg/sandbox"
)

// TestSandboxLifecycle walks the sandbox through what an operator does:
// up, use, re-run up, lose a cluster, up again, status, down.
func TestSandboxLifecycle(t *testing.T) {
	c := e2ecli.New(t)
	base := freeBase(t)
	apiPortBase := "--api-port-base=" + strconv.Itoa(base)

	out := c.MustRun("sandbox", "up", "--clusters", "3", apiPortBase)
	kubeconfig := filepath.Join(c.Dir, "kubeconfig")
	if !strings.Contains(out, "export KUBECONFIG="+kubeconfig) {
		t.Errorf("up does not tell how to use the kubeconfig:\n%s", out)
	}
	if got := strings.TrimSpace(c.MustRun("sandbox", "kubeconfig")); got != kubeconfig {
		t.Errorf("sandbox kubeconfig = %q, want %q", got, kubeconfig)
	}

	t.Run("every cluster has its nodes, CRDs and own CIDRs", func(t *testing.T) {
		c := c.In(t)
		for i := 1; i <= 3; i++ {
			ctx := sandbox.ClusterName(i)
			got := c.Kubectl("--context", ctx, "get", "nodes,crd", "-o", "name")
			for _, want := range []string{
				"node/" + ctx + "-node-1",
				"customresourcedefinition.apiextensions.k8s.io/memberclusters.federation.antreaplus.io",
				"customresourcedefinition.apiextensions.k8s.io/networkpolicies.crd.antrea.io",
				"customresourcedefinition.apiextensions.k8s.io/externalentities.crd.antrea.io",
				"customresourcedefinition.apiextensions.k8s.io/virtualmachines.cloud.antreaplus.io",
				"customresourcedefinition.apiextensions.k8s.io/serviceexports.multicluster.x-k8s.io",
				"customresourcedefinition.apiextensions.k8s.io/serviceimports.multicluster.x-k8s.io",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("%s lacks %s", ctx, want)
				}
			}
			if strings.Contains(got, "member-"+strconv.Itoa(i%3+1)+"-node") {
				t.Errorf("%s shows another cluster's nodes: clusters share a store\n%s", ctx, got)
			}
			svc := c.Kubectl("--context", ctx, "create", "service", "clusterip", "probe", "--tcp=80:80", "-o", "jsonpath={.spec.clusterIP}")
			if want := fmt.Sprintf("10.%d.", 200+i); !strings.HasPrefix(svc, want) {
				t.Errorf("%s gave ClusterIP %s, want one in its Service CIDR %s0.0/16", ctx, svc, want)
			}
		}
	})

	t.Run("Pods created at once on fresh nodes get distinct IPs", func(t *testing.T) {
		testDistinctPodIPs(t, c.In(t))
	})

	t.Run("re-running up keeps the running clusters", func(t *testing.T) {
		c := c.In(t)
		out := c.MustRun("sandbox", "up", "--clusters", "3", apiPortBase)
		if n := strings.Count(out, "already running"); n != 3 {
			t.Errorf("want 3 clusters reported already running, got %d:\n%s", n, out)
		}
		if svc := c.Kubectl("--context", "member-1", "get", "service", "probe", "-o", "name"); !strings.Contains(svc, "probe") {
			t.Errorf("a re-run lost member-1's objects")
		}
	})

	t.Run("a killed API server is reported and restarted by up", func(t *testing.T) {
		c := c.In(t)
		pid := readPid(t, filepath.Join(c.Dir, "kwok", "clusters", "member-3", "pids", "kube-apiserver.pid"))
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		out, err := c.Run("sandbox", "status")
		if err == nil || !strings.Contains(out, "member-3") || !strings.Contains(out, "1 clusters or processes are not ready") {
			t.Fatalf("status after killing member-3's API server: err=%v\n%s", err, out)
		}
		c.MustRun("sandbox", "up", "--clusters", "3", apiPortBase)
		var status sandboxStatus
		if err := json.Unmarshal([]byte(c.MustOutput("sandbox", "status", "-o", "json")), &status); err != nil {
			t.Fatal(err)
		}
		for _, s := range status.Clusters {
			if !s.Ready {
				t.Errorf("%s not ready after up: %s", s.Name, s.Error)
			}
		}
		if svc := c.Kubectl("--context", "member-3", "get", "service", "probe", "-o", "name"); !strings.Contains(svc, "probe") {
			t.Errorf("the restart lost member-3's objects")
		}
	})

	t.Run("a port in use is named with its owner", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = l.Close() }()
		port := l.Addr().(*net.TCPAddr).Port
		other := &e2ecli.CLI{T: t, Bin: c.Bin, Dir: filepath.Join(t.TempDir(), "other"), Tools: c.Tools}
		out, err := other.Run("sandbox", "up", "--clusters", "1", "--api-port-base="+strconv.Itoa(port))
		want := fmt.Sprintf("port %d is in use by pid %d", port, os.Getpid())
		if err == nil || !strings.Contains(out, want) {
			t.Fatalf("want an error containing %q, got err=%v\n%s", want, err, out)
		}
	})

	t.Run("federated: a Service exported with two types resolves in the third member", func(t *testing.T) {
		testFederatedSandbox(t, c.In(t), apiPortBase)
	})

	t.Run("down leaves no process and no port", func(t *testing.T) {
		c := c.In(t)
		var pids []int
		files, _ := filepath.Glob(filepath.Join(c.Dir, "kwok", "clusters", "*", "pids", "*.pid"))
		for _, f := range files {
			pids = append(pids, readPid(t, f))
		}
		if len(pids) < 15 {
			t.Fatalf("found %d component pids, want 5 per cluster", len(pids))
		}
		services, _ := filepath.Glob(filepath.Join(c.Dir, "*", "*.pid"))
		for _, f := range services {
			pids = append(pids, readPid(t, f))
		}
		c.MustRun("sandbox", "down")
		for _, pid := range pids {
			if sandbox.Alive(pid) {
				t.Errorf("process %d is still running after down", pid)
			}
		}
		for port := base; port < base+3; port++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				owner, _ := exec.Command("ss", "-ltnpH", "sport = :"+strconv.Itoa(port)).CombinedOutput()
				t.Errorf("port %d still taken after down: %v (%s)", port, err, strings.TrimSpace(string(owner)))
				continue
			}
			_ = l.Close()
		}
		if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
			t.Errorf("sandbox directory %s still exists", c.Dir)
		}
	})
}

// sandboxStatus is the JSON of 'antreaplus sandbox status -o json'.
type sandboxStatus struct {
	Clusters []sandbox.ClusterStatus `json:"clusters"`
	Services []sandbox.ServiceStatus `json:"services"`
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}

// freeBase finds a base port whose whole sandbox port range is free.
func freeBase(t *testing.T) int {
	t.Helper()
	base, err := sandbox.FreeBase(3)
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// testDistinctPodIPs creates eight Pods in one request on member-2's nodes
// 2 and 3, which have run no Pod yet, and wants eight addresses: kwok
// gives a node's first addresses from a pool it makes then, and four
// workers at once once made two pools, so two Pods shared an address. The
// sandbox asks its kwok controller for one worker; that is checked in the
// configuration kwokctl recorded too.
func testDistinctPodIPs(t *testing.T, c *e2ecli.CLI) {
	t.Helper()
	recorded, err := os.ReadFile(filepath.Join(c.Dir, "kwok", "clusters", "member-2", "kwok.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(recorded), "kind: KwokConfiguration") || !strings.Contains(string(recorded), "podPlayStageParallelism: 1") {
		t.Errorf("kwokctl's record of member-2 gives its kwok controller no podPlayStageParallelism of 1:\n%s", recorded)
	}
	var pods strings.Builder
	pods.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range 8 {
		fmt.Fprintf(&pods, `- apiVersion: v1
  kind: Pod
  metadata: {name: ip-%d, labels: {app: ip-check}}
  spec:
    nodeName: member-2-node-%d
    containers: [{name: c, image: registry.example/app:1}]
`, i, 2+i%2)
	}
	file := filepath.Join(t.TempDir(), "pods.yaml")
	if err := os.WriteFile(file, []byte(pods.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Kubectl("--context", "member-2", "create", "-f", file)
	c.Kubectl("--context", "member-2", "wait", "pod", "-l", "app=ip-check", "--for=condition=Ready", "--timeout=90s")
	out := c.Kubectl("--context", "member-2", "get", "pods", "-l", "app=ip-check", "-o",
		`jsonpath={range .items[*]}{.metadata.name}={.status.podIP}{"\n"}{end}`)
	holders := map[string][]string{}
	for _, line := range strings.Fields(out) {
		name, ip, _ := strings.Cut(line, "=")
		holders[ip] = append(holders[ip], name)
	}
	if len(holders) != 8 {
		t.Errorf("8 Pods have %d distinct IPs (IP: Pods): %v", len(holders), holders)
	}
	c.Kubectl("--context", "member-2", "delete", "pods", "-l", "app=ip-check", "--wait=false")
}
