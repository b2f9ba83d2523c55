package vmsandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/test/e2e/e2ecli"
)

// podComponents are the status kinds of the components the chart runs
// as Deployments, and their Deployments.
var podComponents = map[string]string{
	"member-controller":  "antreaplus-member-controller",
	"policy-controller":  "antreaplus-policy-controller",
	"dns":                "antreaplus-coredns",
	"federation-manager": "antreaplus-federation-manager",
	"cloud-controller":   "antreaplus-cloud-controller",
}

// testComponentsRunAsPods checks that each component of an as-installed
// sandbox runs as its Deployment's Pod says: the Pod's arguments, the
// image's user (65532) without any capability and with no_new_privs, the
// kubernetes Service in its environment, its own network namespace, and
// its service account's token as its credentials (no kubeconfig).
func testComponentsRunAsPods(t *testing.T, c *e2ecli.CLI) {
	t.Helper()
	hostNet, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range sandboxServices(t, c) {
		deployment, ok := podComponents[s.Kind]
		if !ok {
			continue
		}
		seen[s.Kind] = true
		what := fmt.Sprintf("the %s of %s (pid %d)", s.Kind, s.Cluster, s.Pid)
		if s.Pid == 0 {
			t.Errorf("%s does not run", what)
			continue
		}
		args := strings.Fields(c.Kubectl("--context", s.Cluster, "-n", "antreaplus-system", "get", "deployment", deployment,
			"-o", "jsonpath={.spec.template.spec.containers[0].args[*]}"))
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.Pid))
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		got := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
		if len(got) == 0 || !strings.HasPrefix(got[0], "/usr/local/bin/") || !slices.Equal(got[1:], args) {
			t.Errorf("%s runs %q, want the image's entrypoint with the Deployment's args %q", what, got, args)
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.Pid))
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		for _, want := range []string{"Uid:\t65532\t65532\t65532\t65532", "Gid:\t65532\t65532\t65532\t65532",
			"CapEff:\t0000000000000000", "CapBnd:\t0000000000000000", "NoNewPrivs:\t1"} {
			if !bytes.Contains(status, []byte(want+"\n")) {
				t.Errorf("%s: /proc status lacks %q (the Pod's security context)", what, want)
			}
		}
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", s.Pid))
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		kube := c.Kubectl("--context", s.Cluster, "get", "service", "kubernetes", "-o", "jsonpath={.spec.clusterIP}")
		env := strings.Split(string(environ), "\x00")
		if !slices.Contains(env, "KUBERNETES_SERVICE_HOST="+kube) || slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "KUBECONFIG=") }) {
			t.Errorf("%s: environment %q, want KUBERNETES_SERVICE_HOST=%s (in-cluster configuration) and no KUBECONFIG", what, env, kube)
		}
		if slices.ContainsFunc(got, func(a string) bool { return strings.HasPrefix(a, "--kubeconfig") }) {
			t.Errorf("%s is given a kubeconfig: %q", what, got)
		}
		if n, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", s.Pid)); err != nil || n == hostNet {
			t.Errorf("%s: network namespace %s (%v), want one of its own", what, n, err)
		}
	}
	for kind := range podComponents {
		if !seen[kind] {
			t.Errorf("status lists no %s", kind)
		}
	}
}

// testKwokRestartAddresses: member-1's kwok controller is killed, and up
// starts it again and deletes the nodes' Leases the dead one held, so that
// a Pod made meanwhile is played at once (not 200 s later, when they would
// have expired). A restarted kwok controller forgets the addresses it gave
// and may give a taken one again (seen: a Pod made after a restart got the
// DNS Pod's address), but not always the same one; so the test gives a
// Pod the DNS Pod's address itself, while no kwok controller runs, as kwok
// would. up then gives the DNS Pod another address, free in its node's
// Pod CIDR, and runs it there. (The next subtests resolve names through
// the member's DNS server.) A second Pod, made while no kwok controller
// runs, is played within 30 s of up; it may get a taken address, which the
// next up would move a chart Pod away from (not checked here: up looked
// before it was played).
func testKwokRestartAddresses(t *testing.T, c *e2ecli.CLI, up []string) {
	t.Helper()
	const ctx = "member-1"
	pidFile := filepath.Join(c.Dir, "kwok", "clusters", ctx, "pids", "kwok-controller.pid")
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	dns := strings.Fields(c.Kubectl("--context", ctx, "-n", "antreaplus-system", "get", "pods", "-l", "app.kubernetes.io/component=coredns",
		"-o", "jsonpath={.items[0].metadata.name} {.items[0].spec.nodeName} {.items[0].status.podIP}"))
	if len(dns) != 3 {
		t.Fatalf("%s's DNS Pod: %q, want its name, node and IP", ctx, dns)
	}
	holder, node, taken := dns[0], dns[1], dns[2]
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); sandbox.Alive(pid); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the kwok controller (pid %d) is alive 10 s after SIGKILL", pid)
		}
	}
	for _, name := range []string{"ip-probe", "ip-probe-2"} {
		c.Kubectl("--context", ctx, "run", name, "--image=registry.example/app:1", "--restart=Never",
			`--overrides={"spec":{"nodeName":"`+node+`"}}`)
		defer c.Kubectl("--context", ctx, "delete", "pod", name, "--wait=false")
	}
	c.Kubectl("--context", ctx, "patch", "pod", "ip-probe", "--subresource=status", "--type=merge", "-p",
		`{"status":{"phase":"Running","podIP":"`+taken+`","podIPs":[{"ip":"`+taken+`"}]}}`)
	out := c.MustRun(up...)
	if !strings.Contains(out, ctx+": kwok-controller exited; starting it again") {
		t.Errorf("up did not say it started %s's kwok controller again:\n%s", ctx, out)
	}
	want := fmt.Sprintf("kwok gave Pod antreaplus-system/%s the IP %s of default/ip-probe", holder, taken)
	if !strings.Contains(out, want) || !strings.Contains(out, "; gave it ") {
		t.Errorf("up did not give %s another address; want %q in:\n%s", holder, want, out)
	}
	c.Kubectl("--context", ctx, "wait", "pod", "ip-probe-2", "--for=condition=Ready", "--timeout=30s")
	ips := map[string][]string{}
	rows := c.Kubectl("--context", ctx, "get", "pods", "-A", "-o",
		`jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {.status.podIP}{"\n"}{end}`)
	for _, row := range strings.Split(strings.TrimSpace(rows), "\n") {
		if f := strings.Fields(row); len(f) == 2 && f[0] != "default/ip-probe-2" {
			ips[f[1]] = append(ips[f[1]], f[0])
		}
	}
	for ip, pods := range ips {
		if len(pods) > 1 && slices.ContainsFunc(pods, func(p string) bool { return strings.HasPrefix(p, "antreaplus-system/") }) {
			t.Errorf("a Pod the sandbox plays shares its IP %s: %v", ip, pods)
		}
	}
	if got := strings.TrimSpace(c.Kubectl("--context", ctx, "-n", "antreaplus-system", "get", "pod", holder, "-o", "jsonpath={.status.podIP}")); got == taken || got == "" {
		t.Errorf("%s has the IP %q after up, want another than %s", holder, got, taken)
	}
}
