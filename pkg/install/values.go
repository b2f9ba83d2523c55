package install

import (
	"fmt"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chartutil"
)

// Role is what a cluster is in a federation; each role enables components
// of the chart.
type Role string

const (
	// RoleMember: the member controller, the policy controller, the
	// federation account and the DNS integration. Every cluster is a member.
	RoleMember Role = "member"
	// RoleSupervisor: a member that also runs the federation manager.
	RoleSupervisor Role = "supervisor"
	// RoleCloud: a member that imports cloud resources (the cloud controller).
	RoleCloud Role = "cloud"
)

// Roles are the roles, in the order they are documented.
var Roles = []Role{RoleMember, RoleSupervisor, RoleCloud}

// roleValue is the chart value each role enables.
var roleValue = map[Role]string{RoleMember: "member", RoleSupervisor: "supervisor", RoleCloud: "cloud"}

// ParseRoles reads --role values ("supervisor", "supervisor,cloud"), each
// once; member is implied by the others.
func ParseRoles(values []string) ([]Role, error) {
	var out []Role
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			r := Role(strings.TrimSpace(s))
			if _, ok := roleValue[r]; !ok {
				return nil, fmt.Errorf("unknown role %q: the roles are member, supervisor and cloud", s)
			}
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	if len(out) > 0 && !slices.Contains(out, RoleMember) {
		out = append(out, RoleMember)
	}
	slices.SortFunc(out, func(a, b Role) int { return slices.Index(Roles, a) - slices.Index(Roles, b) })
	return out, nil
}

// ValuesFile is a values file: its name (for messages) and content.
type ValuesFile struct {
	Name string
	Data []byte
}

// Values merges values files (later ones win, as with helm --values) and
// the roles: each role sets <role>.enabled to true, the others to false.
// A file that enables or disables a role against the roles given is an
// error that names it; without roles, the files (or the chart's defaults:
// a member) decide.
func Values(roles []Role, files ...ValuesFile) (map[string]any, error) {
	merged := map[string]any{}
	for _, f := range files {
		v, err := chartutil.ReadValues(f.Data)
		if err != nil {
			return nil, fmt.Errorf("values file %s: %w", f.Name, err)
		}
		if len(roles) > 0 {
			for _, r := range Roles {
				want := slices.Contains(roles, r)
				if got, ok := enabled(v, roleValue[r]); ok && got != want {
					return nil, fmt.Errorf("values file %s sets %s.enabled=%t, but the roles are %s: drop it from the file or change --role",
						f.Name, roleValue[r], got, RoleList(roles))
				}
			}
		}
		merged = chartutil.MergeTables(v.AsMap(), merged)
	}
	for _, r := range Roles {
		if len(roles) == 0 {
			break
		}
		section, _ := merged[roleValue[r]].(map[string]any)
		if section == nil {
			section = map[string]any{}
		}
		section["enabled"] = slices.Contains(roles, r)
		merged[roleValue[r]] = section
	}
	return merged, nil
}

// enabled reads <section>.enabled of values, if it is set.
func enabled(v chartutil.Values, section string) (bool, bool) {
	s, ok := v[section].(map[string]any)
	if !ok {
		return false, false
	}
	b, ok := s["enabled"].(bool)
	return b, ok
}

// RolesOf are the roles a rendering's values enable.
func RolesOf(values map[string]any, defaults map[string]any) []Role {
	var out []Role
	for _, r := range Roles {
		on, set := enabled(values, roleValue[r])
		if !set {
			on, _ = enabled(defaults, roleValue[r])
		}
		if on {
			out = append(out, r)
		}
	}
	return out
}

// RoleList is roles as a --role value.
func RoleList(roles []Role) string {
	s := make([]string, len(roles))
	for i, r := range roles {
		s[i] = string(r)
	}
	return strings.Join(s, ",")
}
