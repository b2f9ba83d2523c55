package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/tenancy/tenantadmin"
)

func TestCreateSummary(t *testing.T) {
	for _, c := range []struct {
		res  tenantadmin.CreateResult
		want string
	}{
		{res: tenantadmin.CreateResult{Admins: []string{"User alice", "Group team-a"}, Controller: "shared"},
			want: "Tenant alpha ready in member-1: admins User alice, Group team-a; managed by the shared cloud controller."},
		{res: tenantadmin.CreateResult{Controller: "alpha", Deployment: tenantadmin.Created},
			want: "Tenant alpha ready in member-1: admins none yet; managed by its own cloud controller, instance alpha."},
		{res: tenantadmin.CreateResult{Admins: []string{"User alice"}, Controller: "other"},
			want: "Tenant alpha ready in member-1: admins User alice; managed by the cloud controller instance other."},
	} {
		if got := createSummary("member-1", "alpha", &c.res); got != c.want {
			t.Errorf("summary\n%s\nwant\n%s", got, c.want)
		}
	}
}

func TestTenantConfig(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "config")
	raw := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: https://127.0.0.1:6443}
users:
- name: u
  user: {token: t}
- name: carol
  user: {token: t, as: carol, as-groups: [system:authenticated]}
contexts:
- name: member-1
  context: {cluster: c, user: u}
- name: as-carol
  context: {cluster: c, user: carol}
current-context: member-1
`
	if err := os.WriteFile(kubeconfig, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	noCurrent := filepath.Join(dir, "no-current")
	if err := os.WriteFile(noCurrent, []byte(strings.Replace(raw, "current-context: member-1\n", "", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags       configFlags
		wantContext string
		wantAs      string
		wantErr     string
	}{
		{flags: configFlags{kubeconfig: kubeconfig}, wantContext: "member-1"},
		{flags: configFlags{kubeconfig: kubeconfig, contexts: []string{"as-carol"}}, wantContext: "as-carol", wantAs: "carol"},
		{flags: configFlags{kubeconfig: kubeconfig, contexts: []string{"nope"}}, wantErr: `no context "nope"`},
		{flags: configFlags{kubeconfig: noCurrent}, wantErr: "no current context"},
		{flags: configFlags{kubeconfig: kubeconfig, contexts: []string{"member-1", "as-carol"}}, wantErr: "acts on one cluster"},
		{flags: configFlags{}, wantErr: "no kubeconfig"},
		{flags: configFlags{kubeconfig: filepath.Join(dir, "missing")}, wantErr: "no such file"},
	} {
		cfg, name, err := c.flags.currentContext()
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%+v: error %v, want %q", c.flags, err, c.wantErr)
			}
			continue
		}
		if err != nil || name != c.wantContext || cfg.Impersonate.UserName != c.wantAs {
			t.Errorf("%+v: context %q as %q, %v; want %q as %q", c.flags, name, cfg.Impersonate.UserName, err, c.wantContext, c.wantAs)
		}
	}
}
