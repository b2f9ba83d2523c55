// Package tenantadmin creates, lists and deletes tenants: what `antreaplus
// tenant create|list|delete` does (the CLI's library).
//
// A tenant is a Namespace labelled tenancy.antreaplus.io/tenant=true
// (package tenancy). Create makes or updates it, binds its administrators
// to the chart's persona ClusterRole antreaplus-tenant-admin with the
// RoleBinding antreaplus-tenant-admin in it, and, for a hard tenant
// (Dedicated), labels it tenancy.antreaplus.io/controller=<tenant> and runs
// a cloud controller of its own: a copy of the installed Deployment
// antreaplus-system/antreaplus-cloud-controller named
// antreaplus-cloud-controller-<tenant>, whose instance is the tenant and
// whose selector is that label. List shows every tenant, its controller,
// the holder of its claim, what it holds and what contends for it. Delete
// removes the dedicated controller, the RoleBinding and the Namespace, and
// refuses while accounts remain (their imported inventory would be left to
// the Namespace's deletion, not to the cloud controller).
//
// The decisions (the Namespace's labels, the admins, the dedicated
// Deployment from the installed one, the rows of the listing, whether a
// delete may proceed) are pure functions, tested by tables; Create, List
// and Delete read, decide and write.
//
// # What it needs
//
// Without a dedicated controller, exactly the persona ClusterRole
// antreaplus-cluster-admin and its Role in antreaplus-system (the claims):
// Namespaces, RoleBindings with bind on the personas only, and reads.
// A dedicated controller also needs Deployments in antreaplus-system,
// which run Pods as the cloud controller's ServiceAccount: a cluster
// administrator's right, which no persona has.
//
// Everything is created once and left unchanged when run again: each step
// says created, configured or unchanged.
package tenantadmin
