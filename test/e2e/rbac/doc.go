// Package rbac proves that the chart's RBAC is least privilege: each
// component is refused what it does not need, by a real API server.
//
// # RBAC is least privilege: how it is checked
//
// Each component of the chart (deploy/charts/antreaplus) runs as its own
// ServiceAccount in antreaplus-system: the member controller, the policy
// controller, the federation manager, the cloud controller, the DNS
// server, and the federation account that supervisors reach a member
// with. Their roles are generated (make generate) from the
// +kubebuilder:rbac markers of the packages each program runs
// (hack/generate.sh lists them), into files/rbac/*.yaml; the federation
// account's come from pkg/federation/membership, which `antreaplus
// federation join` grants too. A grant therefore appears only where the
// code that needs it declares it.
//
// The tests here hold the result to a table written by hand
// (rights_test.go): for every account, each grant (verbs, resources,
// names, cluster-wide or in antreaplus-system only) with one line saying
// what the program does with it. Against one real cluster with the chart
// installed with every role on (member, supervisor, cloud with agentless
// enforcement), installed as `antreaplus install` does (pkg/install):
//
//   - TestRulesAreTheTable impersonates each account and asks the API
//     server what it may do (SelfSubjectRulesReview), in antreaplus-system
//     and in a user's namespace. Anything beyond the account's rows (and
//     beyond what Kubernetes lets every account do: asking what it may do,
//     discovery) fails the test and names the grant; so does a row the
//     chart no longer grants. A new grant must be justified in the table.
//   - TestRefused makes real requests, as each account, that must be
//     refused with 403 by RBAC: binding cluster-admin to itself,
//     impersonating, issuing tokens, deleting a namespace, creating Pods,
//     webhooks or CRDs, reaching kubelets through nodes/proxy, reading
//     Secrets (for the accounts that read none), and writing what the
//     component only reads (e.g. the DNS server writing ServiceImports,
//     the member controller its ClusterMembership, a controller another's
//     leader-election Lease). Writes are dry runs.
//   - TestAllowed makes requests each component's work needs, which must
//     succeed (e.g. the member controller lists ServiceExports in every
//     namespace), so that a refusal from a broken client or cluster cannot
//     pass for least privilege.
//   - TestEveryAccountHasARow: every ServiceAccount the chart renders has
//     rows and probes, and the chart binds roles to them alone.
//
// Run it alone with ANTREAPLUS_TOOLS_DIR=$(hack/tools.sh dir)
// ANTREAPLUS_REQUIRE_CLUSTERS=1 go test ./test/e2e/rbac -v.
package rbac
