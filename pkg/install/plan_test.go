package install

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPlanRelease(t *testing.T) {
	defaults, err := chartDefaults()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	recorded := &Release{
		Roles:    []Role{RoleMember, RoleSupervisor},
		Values:   map[string]any{"logVerbosity": 2, "dns": map[string]any{"mode": "corefile"}},
		Revision: 3,
	}
	file := func(data string) []ValuesFile { return []ValuesFile{{Name: "f.yaml", Data: []byte(data)}} }
	for _, c := range []struct {
		name       string
		opts       Options
		recorded   *Release
		wantRoles  []Role
		wantValues map[string]any
		wantRev    int
		wantErr    string
	}{
		{name: "install: the chart's default roles", wantRoles: []Role{RoleMember}, wantValues: map[string]any{}, wantRev: 1},
		{
			name:      "install: roles and values, the switches not recorded",
			opts:      Options{Roles: []Role{RoleMember, RoleCloud}, ValuesFiles: file("cloud:\n  agentless: false\nlogVerbosity: 1\n")},
			wantRoles: []Role{RoleMember, RoleCloud}, wantValues: map[string]any{"cloud": map[string]any{"agentless": false}, "logVerbosity": 1.0}, wantRev: 1,
		},
		{
			name:      "install: a file's switch decides without --role",
			opts:      Options{ValuesFiles: file("supervisor:\n  enabled: true\n")},
			wantRoles: []Role{RoleMember, RoleSupervisor}, wantValues: map[string]any{}, wantRev: 1,
		},
		{
			name:      "install: Values over the files",
			opts:      Options{ValuesFiles: file("logVerbosity: 1\n"), Values: map[string]any{"logVerbosity": 4}},
			wantRoles: []Role{RoleMember}, wantValues: map[string]any{"logVerbosity": 4.0}, wantRev: 1,
		},
		{
			name: "upgrade: roles and values kept", recorded: recorded,
			wantRoles: []Role{RoleMember, RoleSupervisor}, wantValues: map[string]any{"logVerbosity": 2.0, "dns": map[string]any{"mode": "corefile"}}, wantRev: 4,
		},
		{
			name: "upgrade: new roles, values kept", recorded: recorded, opts: Options{Roles: []Role{RoleMember}},
			wantRoles: []Role{RoleMember}, wantValues: map[string]any{"logVerbosity": 2.0, "dns": map[string]any{"mode": "corefile"}}, wantRev: 4,
		},
		{
			name: "upgrade: new values, roles kept", recorded: recorded, opts: Options{Values: map[string]any{"logVerbosity": 1}},
			wantRoles: []Role{RoleMember, RoleSupervisor}, wantValues: map[string]any{"logVerbosity": 1.0}, wantRev: 4,
		},
		{
			name: "a file against the roles", opts: Options{Roles: []Role{RoleMember}, ValuesFiles: file("supervisor:\n  enabled: true\n")},
			wantErr: "sets supervisor.enabled=true",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, err := planRelease(c.opts, c.recorded, defaults, now)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one that says %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := pl.release
			if !reflect.DeepEqual(r.Roles, c.wantRoles) || r.Revision != c.wantRev || !r.Time.Equal(now) {
				t.Errorf("roles %v, revision %d, time %s; want %v, %d, %s", r.Roles, r.Revision, r.Time, c.wantRoles, c.wantRev, now)
			}
			if !reflect.DeepEqual(r.Values, c.wantValues) {
				t.Errorf("recorded values %v, want %v", r.Values, c.wantValues)
			}
			if got := RolesOf(pl.values, defaults); !reflect.DeepEqual(got, c.wantRoles) {
				t.Errorf("the values render roles %v, want %v", got, c.wantRoles)
			}
		})
	}
}

func TestMissingRoles(t *testing.T) {
	for _, c := range []struct{ have, want, missing []Role }{
		{[]Role{RoleMember}, []Role{RoleMember}, nil},
		{[]Role{RoleMember}, []Role{RoleMember, RoleSupervisor}, []Role{RoleSupervisor}},
		{[]Role{RoleMember, RoleCloud, RoleSupervisor}, []Role{RoleMember, RoleSupervisor}, nil},
	} {
		if got := missingRoles(c.have, c.want); !reflect.DeepEqual(got, c.missing) {
			t.Errorf("missingRoles(%v, %v) = %v, want %v", c.have, c.want, got, c.missing)
		}
	}
}
