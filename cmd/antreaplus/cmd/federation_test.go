package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/sandbox"
)

func TestDefaultKubeconfig(t *testing.T) {
	home, sb := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(sandbox.DirEnv, sb)

	t.Setenv("KUBECONFIG", "/a:/b")
	if got := defaultKubeconfig(); got != "/a:/b" {
		t.Errorf("with $KUBECONFIG: %q", got)
	}
	t.Setenv("KUBECONFIG", "")
	if got, want := defaultKubeconfig(), filepath.Join(home, ".kube", "config"); got != want {
		t.Errorf("without a sandbox: %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(sb, "kubeconfig"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := defaultKubeconfig(), filepath.Join(sb, "kubeconfig"); got != want {
		t.Errorf("with a sandbox: %q, want %q", got, want)
	}
}

func TestParseLabels(t *testing.T) {
	tests := []struct {
		flags   []string
		want    map[string]string
		wantErr string
	}{
		{flags: nil, want: map[string]string{}},
		{flags: []string{"env=prod", "region=eu=1", "empty="}, want: map[string]string{"env": "prod", "region": "eu=1", "empty": ""}},
		{flags: []string{"env"}, wantErr: `--label "env": want key=value`},
		{flags: []string{"=x"}, wantErr: "want key=value"},
	}
	for _, tt := range tests {
		got, err := parseLabels(tt.flags)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseLabels(%v) error = %v, want %q", tt.flags, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("parseLabels(%v) = %v, %v", tt.flags, got, err)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("parseLabels(%v)[%s] = %q, want %q", tt.flags, k, got[k], v)
			}
		}
	}
}

func TestParseSupervisors(t *testing.T) {
	kc := &membership.Kubeconfig{Paths: []string{"kc"}, Clusters: []membership.Cluster{{Name: "member-1"}, {Name: "member-2"}}}
	clusters, ids, err := parseSupervisors(kc, []string{"member-1", "member-2=eu-2"})
	if err != nil || len(clusters) != 2 || clusters[1].Name != "member-2" || ids["member-2"] != "eu-2" || len(ids) != 1 {
		t.Fatalf("parseSupervisors = %v, %v, %v", clusters, ids, err)
	}
	if _, _, err := parseSupervisors(kc, []string{"member-9"}); err == nil || !strings.Contains(err.Error(), "its contexts are member-1, member-2") {
		t.Fatalf("unknown context: error %v", err)
	}
}

func TestPrintStatus(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 10, 0, time.UTC)
	renew := metav1.NewMicroTime(now.Add(-3 * time.Second))
	since := metav1.NewMicroTime(now.Add(-62 * time.Minute))
	probe := metav1.NewTime(now)
	st := &membership.FederationStatus{
		FederationID: "acme",
		Members: []membership.MemberStatus{
			{ClusterID: "m1", Supervisor: true, Leader: "m1", Ready: true, Reachable: true, LastProbeTime: &probe, LeaseRenewTime: &renew,
				LeaderTerm: 7, LeaderSince: &since},
			{ClusterID: "m2", Problems: []string{"no federation manager has reported on it yet: check", "no supervisor leads it"},
				Refuses: "m9; members matching region=us"},
		},
		Supervisors: []membership.SupervisorStatus{{Context: "ctx-1", ClusterID: "m1", Server: "https://x", Reachable: true, Members: 2}},
		Problems:    []string{"m2: no federation manager has reported on it yet: check"},
	}
	var out bytes.Buffer
	if err := printStatus(&out, st, now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	want := map[string][]string{
		"m1 ":  {"yes", "m1", " 7 ", "1h2m0s", "3s ago"},
		"m2 ":  {"no", "-", "no federation manager has reported on it yet (+1 more)"},
		"m1  ": {"ctx-1", "https://x", "2 members"},
		"m2  ": {"m9; members matching region=us"},
	}
	for prefix, fields := range want {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) && containsAll(l, fields) {
				found = true
			}
		}
		if !found {
			t.Errorf("no line starting %q with %v in:\n%s", prefix, fields, out.String())
		}
	}
	if !strings.Contains(out.String(), "CLUSTER ID  SUPERVISOR  LEADER  TERM  LEADING FOR  READY  REACHABLE  LEASE RENEWED  PROBLEM") ||
		!strings.Contains(out.String(), "  - m2: no federation manager") || !strings.Contains(out.String(), "MEMBER  REFUSES IMPORTS FROM") {
		t.Errorf("table:\n%s", out.String())
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestExternalDNSFlags(t *testing.T) {
	for _, tt := range []struct {
		flags   externalDNSFlags
		domain  string
		off     bool
		wantErr string
	}{
		{flags: externalDNSFlags{domain: "example.org", ttl: 60}, domain: "example.org"},
		{flags: externalDNSFlags{off: true}, off: true},
		{flags: externalDNSFlags{}, wantErr: "--domain"},
		{flags: externalDNSFlags{off: true, domain: "example.org"}, wantErr: "--off takes no"},
		{flags: externalDNSFlags{domain: "example.org", ttl: -1}, wantErr: "at least 1 second"},
	} {
		spec, err := tt.flags.spec()
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%+v: error %v, want %q", tt.flags, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%+v: %v", tt.flags, err)
		case tt.off && spec != nil, !tt.off && (spec == nil || spec.Domain != tt.domain):
			t.Errorf("%+v: spec %+v", tt.flags, spec)
		}
	}
}

func TestOneContext(t *testing.T) {
	for _, tt := range []struct {
		contexts []string
		want     string
		wantErr  string
	}{
		{contexts: []string{"hub"}, want: "hub"},
		{wantErr: "name the cluster to publish from with --context CONTEXT"},
		{contexts: []string{"hub", "member-2"}, wantErr: "--context given 2 times (hub, member-2): this command acts on one cluster"},
	} {
		got, err := (&configFlags{contexts: tt.contexts}).oneContext("publish from")
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%v: error %v, want %q", tt.contexts, err, tt.wantErr)
			}
		case err != nil || got != tt.want:
			t.Errorf("%v: %q, %v; want %q", tt.contexts, got, err, tt.want)
		}
	}
}
