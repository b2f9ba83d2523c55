package v1alpha1

// Labels and annotations of tenancy, on Namespaces and on the Leases in the
// controllers' namespace.
const (
	// LabelTenant marks a Namespace as a tenant ("true"; `antreaplus tenant
	// create` sets it) and, on a claim Lease, names the tenant it claims.
	LabelTenant = "tenancy.antreaplus.io/tenant"
	// LabelController on a Namespace names the controller instance that
	// should manage it: a hard tenant. The chart's shared instance selects
	// the Namespaces without it.
	LabelController = "tenancy.antreaplus.io/controller"
	// LabelInstance on a claim or replica Lease names the controller
	// instance that holds it.
	LabelInstance = "tenancy.antreaplus.io/instance"
	// LabelLease says what a Lease is: LeaseClaim or LeaseReplica.
	LabelLease = "tenancy.antreaplus.io/lease"
	// LeaseClaim is the LabelLease value of a tenant's claim.
	LeaseClaim = "claim"
	// LeaseReplica is the LabelLease value of a replica's heartbeat.
	LeaseReplica = "replica"
	// AnnotationContenderPrefix + an instance name, on a claim Lease: that
	// instance selects the tenant too and leaves it alone; the value is the
	// RFC 3339 time it last said so.
	AnnotationContenderPrefix = "contender.tenancy.antreaplus.io/"
	// OverlapsConfigMap, in the controllers' namespace of a member, is
	// written by the member's federation leader: key a tenant, value what
	// claims it in other members (JSON).
	OverlapsConfigMap = "antreaplus-tenant-overlaps"
)

// The persona ClusterRoles of the chart (templates/personas.yaml).
const (
	// TenantAdminRole: a tenant's administrators, bound in its Namespace.
	TenantAdminRole = "antreaplus-tenant-admin"
	// CloudAdminRole: cloud accounts and their Secrets, wherever bound.
	CloudAdminRole = "antreaplus-cloud-admin"
	// ClusterAdminRole: creates, lists and deletes tenants (and a Role of
	// the same name in antreaplus-system reads the claims).
	ClusterAdminRole = "antreaplus-cluster-admin"
)

// Names and labels of what `antreaplus tenant create` makes.
const (
	// AdminBinding is the RoleBinding, in the tenant's Namespace, of its
	// administrators to TenantAdminRole.
	AdminBinding = "antreaplus-tenant-admin"
	// CloudControllerDeployment is the Deployment the chart's cloud role
	// installs in antreaplus-system: a dedicated controller is a copy of it.
	CloudControllerDeployment = "antreaplus-cloud-controller"
	// ManagedByTenancy is the app.kubernetes.io/managed-by label of what
	// tenant create makes. It is not the release's ("antreaplus"): an
	// upgrade prunes the release's objects its chart lacks, and must keep
	// the dedicated controllers. Uninstall deletes them with the namespace
	// antreaplus-system.
	ManagedByTenancy = "antreaplus-tenancy"
)

// ClaimLeaseName is the name of tenant's claim Lease, in the controllers'
// namespace.
func ClaimLeaseName(tenant string) string { return "tenant-" + tenant }

// Overlap is a claim of the same tenant in another member of a federation:
// the JSON of each value of OverlapsConfigMap is a list of them.
type Overlap struct {
	// Member is the ClusterID of the other member.
	Member string `json:"member"`
	// Holder is the holderIdentity of the claim there.
	Holder string `json:"holder"`
}
