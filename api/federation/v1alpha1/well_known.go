package v1alpha1

// The federation's wire vocabulary: the names, labels and annotations that
// join, leave, the federation manager, the leader controllers, the member
// controller, the chart and the tests agree on. The labels of
// RemoteEntities are with their type (remoteentity_types.go), those of the
// network model with Network (network_types.go).

// Objects the federation creates in every cluster it joins.
const (
	// SystemNamespace holds everything the federation creates in a
	// cluster: the registry (supervisors), the federation ServiceAccount,
	// its token Secret, its Role, the leader Lease and the controllers.
	SystemNamespace = "antreaplus-system"

	// FederationServiceAccount is the least-privilege account supervisors
	// use to reach a member.
	FederationServiceAccount = "antreaplus-federation"
	// FederationTokenSecret holds the long-lived token of
	// FederationServiceAccount.
	FederationTokenSecret = "antreaplus-federation-token"
	// FederationRole grants FederationServiceAccount what it needs in
	// SystemNamespace (the Lease).
	FederationRole = "antreaplus-federation"
	// FederationClusterRole grants FederationServiceAccount what it needs
	// cluster-wide (reading exports and namespaces, writing imports and the
	// membership status).
	FederationClusterRole = "antreaplus-federation"
	// SupervisorRole grants FederationServiceAccount, in a supervisor only,
	// read access to the registry, so that supervisors see each other's
	// view of members.
	SupervisorRole = "antreaplus-federation-supervisor"
	// FederationFlowSchema puts FederationServiceAccount's requests on the
	// Leases of SystemNamespace (the election, the managers' heartbeats) at
	// the API server's leader-election priority level (API Priority and
	// Fairness), so that renewals are not queued behind list traffic.
	FederationFlowSchema = "antreaplus-federation-leases"
	// LeaderElectionPriorityLevel is the API server's priority level for
	// leader election (one of its suggested configurations).
	LeaderElectionPriorityLevel = "leader-election"

	// LeaderLease is the Lease, in each member's SystemNamespace, whose
	// holder is the supervisor leading that member.
	LeaderLease = "antreaplus-federation-leader"
	// ManagerLease is the Lease, in each supervisor's SystemNamespace, that
	// its federation manager renews to show it is alive, and releases (an
	// empty holder) as it shuts down.
	ManagerLease = "antreaplus-federation-manager"
)

// MemberSecretName is the name of the registry Secret holding a member's
// credentials.
func MemberSecretName(clusterID string) string { return "member-" + clusterID }

// Labels and annotations of what the federation writes.
const (
	// LabelManagedBy (app.kubernetes.io/managed-by) marks objects created
	// by AntreaPlus code; each writer has its own value.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedByFederation is the LabelManagedBy value of the objects the
	// federation writes: imports, Leases, RBAC of join.
	ManagedByFederation = "antreaplus-federation"
	// LabelPartOf (app.kubernetes.io/part-of) marks everything of
	// AntreaPlus.
	LabelPartOf = "app.kubernetes.io/part-of"

	// AnnotationHandoverTo on a LeaderLease asks its holder to hand the
	// member over to the named supervisor (the one the balanced assignment
	// prefers).
	AnnotationHandoverTo = "federation.antreaplus.io/handover-to"
	// AnnotationLeaderTerm on objects a leader writes records the Lease's
	// leaseTransitions at the time of the write: writes of a deposed
	// leader carry an older term.
	AnnotationLeaderTerm = "federation.antreaplus.io/leader-term"
)

// Federated Services: what a ServiceExport says and what the leader writes
// into importing members (docs/services.md).
const (
	// EndpointSliceManagedBy is the endpointslice.kubernetes.io/managed-by
	// value of the EndpointSlices the federation writes (a label value: no
	// "/").
	EndpointSliceManagedBy = "federation.antreaplus.io"

	// AnnotationExportToSelector on a ServiceExport limits the members it
	// reaches to those whose registry labels match this label selector, in
	// kubectl's syntax (region=eu,tier!=test). With
	// AnnotationExportToClusters, a member in either is reached. Neither:
	// every member. The exporting member is always reached.
	AnnotationExportToSelector = "federation.antreaplus.io/export-to-selector"
	// AnnotationExportToClusters on a ServiceExport limits the members it
	// reaches to these ClusterIDs, comma-separated (see
	// AnnotationExportToSelector).
	AnnotationExportToClusters = "federation.antreaplus.io/export-to-clusters"

	// AnnotationJoins on a ServiceExport names the federated Service, as
	// "namespace/name", that the export joins instead of its own name: a
	// Service of Namespace a exported into the federated Service b/web.
	// Each importing member takes it only where its Namespace b accepts
	// Namespace a (LabelAcceptFromPrefix).
	AnnotationJoins = "federation.antreaplus.io/joins"
	// LabelAcceptFromPrefix, followed by a Namespace's name a, labels a
	// Namespace b ("true") of an importing member that accepts exports of
	// Namespace a joining its federated Services (AnnotationJoins).
	LabelAcceptFromPrefix = "accept-from.federation.antreaplus.io/"
	// ReasonJoined: the export joins another federated Service.
	ReasonJoined = "Joined"
	// ReasonJoinRefused: the export cannot join the federated Service it
	// names (its member exports that name itself, or the name is invalid).
	ReasonJoinRefused = "JoinRefused"

	// ConditionExported on a ServiceExport (written by the leader of its
	// member) and an EntityExport says where the export went: the members
	// it reaches, and why not the others in its scope.
	ConditionExported = "Exported"
	// ReasonEverywhere: no scope is set; the export reaches every member.
	ReasonEverywhere = "Everywhere"
	// ReasonScoped: the export reaches every member in its scope.
	ReasonScoped = "Scoped"
	// ReasonInvalidScope: the scope cannot be read; the export reaches its
	// own member only.
	ReasonInvalidScope = "InvalidScope"
	// ReasonScopeRefused: members in the scope refuse the exporter.
	ReasonScopeRefused = "Refused"
	// ReasonUnknownClusters: the scope names ClusterIDs that are not members.
	ReasonUnknownClusters = "UnknownClusters"

	// AnnotationFlatNetwork on a ServiceExport, set to "true", declares
	// that the Pods behind the exported Service are reachable from every
	// member: the export then contributes Pod IPs.
	AnnotationFlatNetwork = "federation.antreaplus.io/flat-network"
	// AnnotationNetwork on a ServiceExport names the network its private
	// addresses belong to (a Network's name, such as aws.vpc-0a1b); it is
	// copied to the EndpointSlices imported from it. Without it they are in
	// the exporting cluster's network, cluster.<clusterID>. Its key is
	// LabelNetwork's.
	AnnotationNetwork = LabelNetwork
	// AnnotationAddressType on an imported EndpointSlice names the kind of
	// addresses it holds (LoadBalancer, NodePort, PodIP, None).
	AnnotationAddressType = "federation.antreaplus.io/address-type"
	// AnnotationSourceExport on an imported EndpointSlice records the
	// source export's properties, so that a leader can merge that export
	// again while its cluster cannot be read.
	AnnotationSourceExport = "federation.antreaplus.io/source-export"
	// AnnotationSourceRegion on an imported EndpointSlice is the source
	// cluster's region; absent when unknown.
	AnnotationSourceRegion = "federation.antreaplus.io/source-region"
	// AnnotationSourceZones on an imported EndpointSlice lists the zones of
	// the source cluster's nodes, comma-separated: an endpoint without a
	// zone of its own, a load balancer address, serves each of them.
	// Absent when unknown.
	AnnotationSourceZones = "federation.antreaplus.io/source-zones"
	// AnnotationAddressTypes on a ServiceImport lists each exporting
	// cluster's address type: "member-1=LoadBalancer,member-2=NodePort".
	AnnotationAddressTypes = "federation.antreaplus.io/address-types"
	// AnnotationDerivedService on a ServiceImport names the derived Service
	// whose ClusterIP is the ServiceImport's IP.
	AnnotationDerivedService = "federation.antreaplus.io/derived-service"
)

// DNSEndpoints the federation writes for ExternalDNS (docs/externaldns.md).
const (
	// LabelServiceNamespace and LabelServiceName name the federated Service
	// a DNSEndpoint holds the records of.
	LabelServiceNamespace = "federation.antreaplus.io/service-namespace"
	LabelServiceName      = "federation.antreaplus.io/service-name"
	// AnnotationExporters holds, as JSON, the exporters the records were
	// decided from: a member that cannot be read for a while keeps its part
	// from here, across leader changes too.
	AnnotationExporters = "federation.antreaplus.io/exporters"
	// AnnotationNotes says, one line per note, what of an exporter is not
	// published and why.
	AnnotationNotes = "federation.antreaplus.io/notes"
)
