// Package install renders the project's chart (deploy/charts/antreaplus,
// embedded) for a cluster's roles with Helm's engine, and applies it to the
// cluster: what `antreaplus install`, `upgrade` and `uninstall` do, and
// what `antreaplus sandbox up --as-installed` installs.
//
// The decisions are pure: ParseRoles and Values turn --role and --values
// into the chart's values, Render turns values into the objects to apply,
// in Helm's install order, labelled managed-by "antreaplus"; which values
// an upgrade keeps, what it prunes and when a rollout is done are pure
// functions too, with table tests.
//
// # Usage
//
// See Example: a cluster installed as a member, upgraded to a supervisor
// and uninstalled; and ExampleRender, the chart rendered offline.
//
// Install, Upgrade and Uninstall talk to the cluster through the dynamic
// client, with server-side apply (field manager "antreaplus", forced: it
// takes over what an earlier tool applied). The release is recorded in the
// ConfigMap antreaplus-system/antreaplus-release (roles, values, chart
// version, revision, time): Install refuses a cluster that has one, Upgrade
// one that has none and keeps its roles and values unless new ones are
// given. Objects labelled as the release's (app.kubernetes.io/instance
// antreaplus, managed-by antreaplus) of the kinds the chart can render that
// a rendering lacks are pruned. Uninstall refuses a cluster that is still
// in a federation unless forced, deletes what the release made and counts
// what is left. EnsureRoles is what `federation create --install` and
// `join --install` do.
package install
