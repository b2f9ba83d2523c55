package chart

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"antreaplus.io/antreaplus/test/framework"
)

// TestArgsAreFlags: every flag a rendered Deployment passes is one its
// program accepts (as its -help lists them).
func TestArgsAreFlags(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, o := range render(t, c).byKind("Deployment") {
				var d appsv1.Deployment
				into(t, o, &d)
				ctr := d.Spec.Template.Spec.Containers[0]
				accepted := programFlags(t, ctr.Name)
				for _, arg := range ctr.Args {
					name, ok := flagName(arg)
					if !ok {
						t.Errorf("%s: argument %q is not a flag", d.Name, arg)
					} else if !accepted[name] {
						t.Errorf("%s: %s does not accept %q", d.Name, ctr.Name, arg)
					}
				}
			}
		})
	}
}

var helps sync.Map // program -> *helpOnce

type helpOnce struct {
	sync.Once
	flags map[string]bool
	err   error
}

// helpFlag is a flag line of Go's flag usage: "  -name value".
var helpFlag = regexp.MustCompile(`(?m)^\s+-([\w.-]+)`)

// programFlags runs `<program> -help` once and returns the flags it lists.
func programFlags(t *testing.T, program string) map[string]bool {
	t.Helper()
	v, _ := helps.LoadOrStore(program, &helpOnce{})
	h := v.(*helpOnce) //nolint:forcetypeassert // only helpOnce is stored
	h.Do(func() {
		bin, err := framework.Binary(program)
		if err != nil {
			h.err = err
			return
		}
		var out bytes.Buffer
		cmd := exec.CommandContext(t.Context(), bin, "-help")
		cmd.Stdout, cmd.Stderr = &out, &out
		_ = cmd.Run() // the usage is the output; the exit code varies with the flag package's setup
		h.flags = map[string]bool{}
		for _, m := range helpFlag.FindAllStringSubmatch(out.String(), -1) {
			h.flags[m[1]] = true
		}
		if len(h.flags) == 0 {
			h.err = &helmError{err: os.ErrNotExist, output: "no flags in the usage of " + program + ":\n" + out.String()}
		}
	})
	if h.err != nil {
		t.Fatalf("%s -help: %v", program, h.err)
	}
	return h.flags
}

// TestCorefileIsDocumented: the chart's Corefiles are docs/dns.md's, which
// test/e2e/dns runs against a real API server: for the cluster's CoreDNS
// (dns.mode=corefile) the documented block itself, for our Deployment the
// same on port 5353 (a non-root process binds no port below 1024), and the
// forward blocks for the cluster's CoreDNS those documented.
func TestCorefileIsDocumented(t *testing.T) {
	documented := documentedCorefile(t, "# A member's cluster DNS: AntreaPlus's CoreDNS build in place of the cluster's CoreDNS.")
	forward := documentedCorefile(t, "# Stock CoreDNS sending the federation's zones to AntreaPlus's DNS server.")
	corefileMode := render(t, chartCase{name: "dns corefile", values: map[string]any{"dns": map[string]any{"mode": "corefile"}}})
	if got := configMapData(t, corefileMode, "antreaplus-dns-corefile"); got != documented {
		t.Errorf("dns.mode=corefile: Corefile\n%s\nwant docs/dns.md's\n%s", got, documented)
	}
	deployment := render(t, cases[0])
	want := strings.Replace(documented, ".:53 {", ".:5353 {", 1)
	if got := withoutFirstLine(configMapData(t, deployment, "antreaplus-coredns")); got != withoutFirstLine(want) {
		t.Errorf("dns.mode=deployment: Corefile\n%s\nwant docs/dns.md's on port 5353\n%s", got, want)
	}
	fixed := render(t, chartCase{name: "forward blocks", values: map[string]any{"dns": map[string]any{"federationID": "prod"},
		"coredns": map[string]any{"service": map[string]any{"clusterIP": "10.96.0.53"}}}})
	if got := configMapData(t, fixed, "antreaplus-dns-forward"); got != withoutFirstLine(forward) {
		t.Errorf("forward blocks\n%s\nwant docs/dns.md's\n%s", got, withoutFirstLine(forward))
	}
}

func configMapData(t *testing.T, r *rendering, name string) string {
	t.Helper()
	o := r.find("ConfigMap", name)
	if o == nil {
		t.Fatalf("no ConfigMap %s", name)
	}
	var cm corev1.ConfigMap
	into(t, o, &cm)
	return cm.Data["Corefile"]
}

func withoutFirstLine(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return rest
}

// documentedCorefile is the fenced block of docs/dns.md whose first line
// is marker.
func documentedCorefile(t *testing.T, marker string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "docs", "dns.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range regexp.MustCompile("(?s)```corefile\n(.*?)```").FindAllStringSubmatch(string(raw), -1) {
		if strings.HasPrefix(b[1], marker+"\n") {
			return b[1]
		}
	}
	t.Fatalf("docs/dns.md has no corefile block starting with %q", marker)
	return ""
}

// TestNotes: helm install --dry-run=server renders NOTES.txt against the
// API server, with the next steps of each role and DNS mode.
func TestNotes(t *testing.T) {
	st, err := clusters.Sandbox.LoadState()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		values map[string]any
		want   []string
	}{
		{name: "member", values: map[string]any{}, want: []string{"antreaplus federation join", "clusterset.local:53", "antreaplus-dns"}},
		{name: "supervisor, dns corefile", values: map[string]any{"supervisor": map[string]any{"enabled": true}, "dns": map[string]any{"mode": "corefile"}},
			want: []string{"antreaplus federation create", "antreaplus-dns-corefile", "kube-system/coredns"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			installCRDs(t, render(t, cases[0]).crds)
			out, err := runHelm(t, "install", releaseNamespace, tt.values, "--dry-run=server",
				"--kubeconfig", st.Kubeconfig, "--kube-context", cluster)
			if err != nil {
				t.Fatalf("helm install --dry-run=server: %v", err)
			}
			_, notes, ok := strings.Cut(string(out), "NOTES:")
			if !ok {
				t.Fatalf("no NOTES in:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(notes, w) {
					t.Errorf("NOTES lack %q:\n%s", w, notes)
				}
			}
		})
	}
}
