// Package names holds the names AntreaPlus gives to what it creates in
// member and supervisor clusters, so that join, leave, the federation
// manager and the tests agree on them.
package names

const (
	// Namespace holds everything the federation creates in a cluster: the
	// registry (supervisors), the federation ServiceAccount, its token
	// Secret, its Role and the leader Lease.
	Namespace = "antreaplus-system"

	// ServiceAccount is the least-privilege account supervisors use to
	// reach a member.
	ServiceAccount = "antreaplus-federation"
	// TokenSecret holds the long-lived token of ServiceAccount.
	TokenSecret = "antreaplus-federation-token"
	// Role grants ServiceAccount what it needs in Namespace (the Lease).
	Role = "antreaplus-federation"
	// ClusterRole grants ServiceAccount what it needs cluster-wide (reading
	// exports and namespaces, writing imports and the membership status).
	ClusterRole = "antreaplus-federation"
	// SupervisorRole grants ServiceAccount, in a supervisor only, read access
	// to the registry, so that supervisors see each other's view of members.
	SupervisorRole = "antreaplus-federation-supervisor"

	// LeaderLease is the Lease, in each member's Namespace, whose holder is
	// the supervisor leading that member.
	LeaderLease = "antreaplus-federation-leader"
	// ManagerLease is the Lease, in each supervisor's Namespace, that its
	// federation manager renews to show it is alive.
	ManagerLease = "antreaplus-federation-manager"

	// ManagedByLabel marks objects created by AntreaPlus federation code.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// ManagedBy is the value of ManagedByLabel.
	ManagedBy = "antreaplus-federation"

	// HandoverAnnotation on a LeaderLease asks its holder to hand the member
	// over to the named supervisor (the one the balanced assignment prefers).
	HandoverAnnotation = "federation.antreaplus.io/handover-to"
	// LeaderTermAnnotation on objects a leader writes records the Lease's
	// leaseTransitions at the time of the write: writes of a deposed leader
	// carry an older term.
	LeaderTermAnnotation = "federation.antreaplus.io/leader-term"
)

// MemberSecret is the name of the registry Secret holding a member's credentials.
func MemberSecret(clusterID string) string { return "member-" + clusterID }
