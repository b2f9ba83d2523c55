package e2e

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/test/e2e/e2ecli"
)

// summaryLine is the line that ends an install or upgrade.
var summaryLine = regexp.MustCompile(`AntreaPlus v\S+ (installed|upgraded) in (member-\d) as (\S+) \(revision (\d+)\): (\d+) created, (\d+) configured, (\d+) unchanged, (\d+) pruned in \S+\.`)

// TestInstallCommands drives `antreaplus install`, `upgrade` and
// `uninstall`, and `federation create/join --install`, against a sandbox
// of two clusters, as an operator would; and measures the install time.
func TestInstallCommands(t *testing.T) {
	c := e2ecli.New(t)
	c.MustRun("sandbox", "up", "--clusters", "2", "--api-port-base="+strconv.Itoa(freeBase(t)))
	kubeconfig := "--kubeconfig=" + filepath.Join(c.Dir, "kubeconfig")

	t.Run("install a member, printing each object, the summary and the notes", func(t *testing.T) {
		c := c.In(t)
		out := c.MustRun("install", "--context", "member-1", kubeconfig, "--role", "member", "--wait")
		for _, want := range []string{
			"  created Namespace antreaplus-system\n",
			"  created Deployment antreaplus-system/antreaplus-member-controller\n",
			"  available Deployment antreaplus-system/antreaplus-policy-controller\n",
			"Next: make this cluster part of a federation",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
		}
		if m := summaryLine.FindStringSubmatch(out); m == nil || m[1] != "installed" || m[3] != "member" || m[4] != "1" {
			t.Errorf("no summary of revision 1 of a member:\n%s", out)
		}
		if got := c.Kubectl("--context", "member-1", "-n", "antreaplus-system", "get", "deployments", "-o", "name"); !strings.Contains(got, "antreaplus-member-controller") {
			t.Errorf("deployments: %s", got)
		}
	})

	t.Run("install again is refused", func(t *testing.T) {
		out, err := c.Run("install", "--context", "member-1", kubeconfig)
		if err == nil || !strings.Contains(out, "already installed") || !strings.Contains(out, "antreaplus upgrade") {
			t.Errorf("exit %v, want a refusal that says to upgrade:\n%s", err, out)
		}
	})

	t.Run("federation create and join --install", func(t *testing.T) {
		c := c.In(t)
		out := c.MustRun("federation", "create", "--federation-id", "e2e-install", "--supervisor", "member-1", "--install", kubeconfig)
		if m := summaryLine.FindStringSubmatch(out); m == nil || m[1] != "upgraded" || m[3] != "member,supervisor" {
			t.Errorf("member-1's release not upgraded to a supervisor's:\n%s", out)
		}
		out = c.MustRun("federation", "join", "--context", "member-2", "--install", kubeconfig)
		if m := summaryLine.FindStringSubmatch(out); m == nil || m[1] != "installed" || m[2] != "member-2" || m[3] != "member" {
			t.Errorf("member-2 not installed as a member:\n%s", out)
		}
		out = c.MustRun("federation", "join", "--context", "member-2", "--install", kubeconfig)
		if !strings.Contains(out, "member-2: AntreaPlus is installed as member (revision 1); nothing to do") {
			t.Errorf("joining again did not leave the release alone:\n%s", out)
		}
	})

	t.Run("uninstall is refused in a federation, then leaves nothing", func(t *testing.T) {
		c := c.In(t)
		out, err := c.Run("uninstall", "--context", "member-2", kubeconfig)
		if err == nil || !strings.Contains(out, "federation e2e-install") || !strings.Contains(out, "antreaplus federation leave") {
			t.Errorf("exit %v, want a refusal that says to leave:\n%s", err, out)
		}
		c.MustRun("federation", "leave", "--context", "member-2", kubeconfig)
		out = c.MustRun("uninstall", "--context", "member-2", kubeconfig, "--crds")
		if !strings.Contains(out, "  deleted Namespace antreaplus-system\n") || !strings.Contains(out, "nothing left.") {
			t.Errorf("uninstall output:\n%s", out)
		}
		left := c.Kubectl("--context", "member-2", "get", "all,configmaps,serviceaccounts,roles,rolebindings,clusterroles,clusterrolebindings,networkpolicies,poddisruptionbudgets",
			"-A", "-l", "app.kubernetes.io/instance=antreaplus", "-o", "name")
		crds := c.Kubectl("--context", "member-2", "get", "crds", "-o", "name")
		ns := c.Kubectl("--context", "member-2", "get", "namespaces", "-o", "name")
		if strings.TrimSpace(left) != "" || strings.Contains(crds, "antreaplus.io") || strings.Contains(ns, "antreaplus-system") {
			t.Errorf("left in member-2:\n%s\n%s\n%s", left, crds, ns)
		}
	})
}
