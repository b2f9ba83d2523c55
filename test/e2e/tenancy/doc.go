// Package tenancy proves, with a real API server, what the tenancy personas
// of the chart (templates/personas.yaml) let people do, and that `antreaplus
// tenant create|list|delete` makes and unmakes tenants as docs/tenancy.md
// says.
//
// One cluster, the chart installed as `antreaplus install --role cloud`
// does (pkg/install), then, through the CLI's own command tree run in
// process (cmd.NewRoot) against a kubeconfig:
//
//   - tenant create alpha --admin-user alice and beta --admin-user bob, as
//     the cluster's administrator. Requests are then made as alice
//     (impersonated: user alice, group system:authenticated): she creates,
//     updates and deletes CloudProviderAccounts, CloudEntitySelectors,
//     Secrets, Antrea NetworkPolicies and FederatedNetworkPolicies in alpha,
//     and is refused (403, by RBAC) each of them in beta and cluster-wide,
//     and creating Namespaces, RoleBindings (to cluster-admin or to the
//     personas), Leases in antreaplus-system, ClusterNetworkPolicies,
//     ClusterGroups and Tiers, and writing her accounts' status.
//   - An Antrea NetworkPolicy alice writes in alpha applies to nothing
//     outside alpha: one whose appliedTo selects every Namespace is
//     accepted by the API server (the CRD cannot tell), and the policy
//     compiler, fed what the API server holds (ExternalEntities of the same
//     labels in alpha and beta), gives its rules to alpha's only and reports
//     AppliedToOutsideNamespace; what would apply cluster-wide, a
//     ClusterNetworkPolicy, she may not create.
//   - The cloud admin (carol, ClusterRoleBinding to antreaplus-cloud-admin)
//     manages accounts and their Secrets in alpha and beta, and no policy.
//   - The cluster-admin persona (dave, ClusterRoleBinding and the Role of
//     antreaplus-system) runs tenant create, list and delete through a
//     kubeconfig context that impersonates him, may not read Secrets, bind
//     cluster-admin, or give a tenant a controller of its own.
//   - Kubernetes's edit and view ClusterRoles, bound in alpha, gain our
//     kinds by aggregation (view: read only, no Secrets).
//   - tenant list shows owners, expired claims and contenders; tenant
//     delete refuses a tenant with accounts, then deletes it; a tenant
//     with --dedicated-controller gets a copy of the cloud controller,
//     unchanged when run again, deleted with the tenant.
//
// Run it alone with ANTREAPLUS_TOOLS_DIR=$(hack/tools.sh dir)
// ANTREAPLUS_REQUIRE_CLUSTERS=1 go test ./test/e2e/tenancy -v.
package tenancy
