package install

import (
	"context"
	"slices"

	"k8s.io/client-go/rest"
)

// EnsureRoles gives a cluster the components of opts.Roles, as `antreaplus
// federation create --install` and `join --install` do before forming or
// joining: it installs them in a cluster without a release; upgrades a
// release that lacks one of them to the union of its roles and these,
// keeping its values (opts' values are used only by an install); and does
// nothing to a release that has them all. It returns the release the
// cluster had (nil when none) and what was done (nil when nothing).
func EnsureRoles(ctx context.Context, cfg *rest.Config, opts Options) (*Release, *Result, error) {
	recorded, err := ReadRelease(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if recorded == nil {
		res, err := Install(ctx, cfg, opts)
		return nil, res, err
	}
	roles := missingRoles(recorded.Roles, opts.Roles)
	if len(roles) == 0 {
		return recorded, nil, nil
	}
	up := opts
	up.Roles = append(slices.Clone(recorded.Roles), roles...)
	up.ValuesFiles, up.Values = nil, nil
	res, err := Upgrade(ctx, cfg, up)
	return recorded, res, err
}

// missingRoles are the roles of want that have lacks.
func missingRoles(have, want []Role) []Role {
	var out []Role
	for _, r := range want {
		if !slices.Contains(have, r) {
			out = append(out, r)
		}
	}
	return out
}
