package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/install"
)

func TestInstallOptions(t *testing.T) {
	dir := t.TempDir()
	values := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(values, []byte("logVerbosity: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		flags     installFlags
		wantRoles []install.Role
		wantFiles int
		wantErr   string
	}{
		{name: "no role", wantRoles: nil},
		{name: "a list and a flag", flags: installFlags{roles: []string{"cloud,supervisor"}, values: []string{values}},
			wantRoles: []install.Role{install.RoleMember, install.RoleSupervisor, install.RoleCloud}, wantFiles: 1},
		{name: "unknown role", flags: installFlags{roles: []string{"leader"}}, wantErr: `--role: unknown role "leader"`},
		{name: "missing file", flags: installFlags{values: []string{filepath.Join(dir, "nope.yaml")}}, wantErr: "--values: open"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts, err := c.flags.options(nil)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(opts.Roles, c.wantRoles) || len(opts.ValuesFiles) != c.wantFiles {
				t.Errorf("options %+v, %v; want roles %v and %d values files", opts, err, c.wantRoles, c.wantFiles)
			}
		})
	}
}

func TestInstallSummary(t *testing.T) {
	res := &install.Result{
		Release: &install.Release{AppVersion: "v0.1.0", Roles: []install.Role{install.RoleMember, install.RoleSupervisor}, Revision: 3},
		Created: 10, Configured: 2, Unchanged: 40, Pruned: 1, Duration: 1234567 * time.Microsecond,
	}
	want := "AntreaPlus v0.1.0 upgraded in member-1 as member,supervisor (revision 3): 10 created, 2 configured, 40 unchanged, 1 pruned in 1.23s."
	if got := summary("member-1", res, true); got != want {
		t.Errorf("summary:\n%s\nwant\n%s", got, want)
	}
}
