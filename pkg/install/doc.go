// Package install renders the project's chart (deploy/charts/antreaplus,
// embedded) for a cluster's roles with Helm's engine, and applies it to the
// cluster: what `antreaplus install`, `upgrade` and `uninstall` do, and
// what `antreaplus sandbox up --as-installed` installs.
//
// The decisions are pure: ParseRoles and Values turn --role and --values
// into the chart's values, Render turns values into the objects to apply,
// in Helm's install order, labelled managed-by "antreaplus".
package install
