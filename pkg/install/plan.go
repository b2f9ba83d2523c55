package install

import (
	"fmt"
	"maps"
	"time"

	"sigs.k8s.io/yaml"

	"antreaplus.io/antreaplus/deploy/charts"
)

// plan is what an install or upgrade will apply: the values to render
// with, and the record of the release it makes.
type plan struct {
	values  map[string]any
	release *Release
}

// planRelease turns the options into the values to render and the record
// to write. With a recorded release (an upgrade), the roles and the values
// it recorded are kept unless new ones are given: new roles replace the
// roles, new values files or Values replace all the values. defaults are
// the chart's values.yaml, which decide the roles when none are given.
func planRelease(opts Options, recorded *Release, defaults map[string]any, now time.Time) (*plan, error) {
	files := opts.ValuesFiles
	if len(opts.Values) > 0 {
		data, err := yaml.Marshal(opts.Values)
		if err != nil {
			return nil, fmt.Errorf("encoding the values given: %w", err)
		}
		files = append(files, ValuesFile{Name: "(the values given)", Data: data})
	}
	roles := opts.Roles
	if len(roles) > 0 { // member is implied by the other roles, as with --role
		var err error
		if roles, err = ParseRoles([]string{RoleList(roles)}); err != nil {
			return nil, err
		}
	}
	revision := 1
	if recorded != nil {
		revision = recorded.Revision + 1
		if len(roles) == 0 {
			roles = recorded.Roles
		}
		if len(files) == 0 {
			data, err := yaml.Marshal(recorded.Values)
			if err != nil {
				return nil, fmt.Errorf("encoding the values of revision %d: %w", recorded.Revision, err)
			}
			files = []ValuesFile{{Name: fmt.Sprintf("(the values of revision %d)", recorded.Revision), Data: data}}
		}
	}
	values, err := Values(roles, files...)
	if err != nil {
		return nil, err
	}
	given, err := Values(nil, files...)
	if err != nil {
		return nil, err
	}
	return &plan{
		values: values,
		release: &Release{
			Roles:    RolesOf(values, defaults),
			Values:   withoutRoleSwitches(given),
			Revision: revision,
			Time:     now,
		},
	}, nil
}

// withoutRoleSwitches is values without <role>.enabled, and without a role's
// section that held nothing else: the roles are recorded on their own, so
// that an upgrade with other roles does not find the values against them.
func withoutRoleSwitches(values map[string]any) map[string]any {
	out := maps.Clone(values)
	for _, r := range Roles {
		section, ok := out[roleValue[r]].(map[string]any)
		if !ok {
			continue
		}
		section = maps.Clone(section)
		delete(section, "enabled")
		if len(section) == 0 {
			delete(out, roleValue[r])
		} else {
			out[roleValue[r]] = section
		}
	}
	return out
}

// chartDefaults are the embedded chart's values.yaml.
func chartDefaults() (map[string]any, error) {
	chrt, err := loadChart(charts.Antreaplus())
	if err != nil {
		return nil, fmt.Errorf("loading the chart: %w", err)
	}
	return chrt.Values, nil
}
