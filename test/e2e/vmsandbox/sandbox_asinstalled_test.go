package vmsandbox

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

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
