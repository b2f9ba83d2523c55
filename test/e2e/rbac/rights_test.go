package rbac

// The expected rights of every ServiceAccount the chart renders, with what
// the program does with each. TestRulesAreTheTable holds the API server's
// answer to each account against this table: a grant the chart adds
// without a row here fails the test, as does a row the chart no longer
// grants. A new grant is justified here, in one line, or not made.

// grant is one row: verbs on resources of an API group, on any object or
// only on the named ones, in every namespace (a ClusterRole's rule) or in
// antreaplus-system only (a Role's), and why the program needs it.
type grant struct {
	inRelease bool
	verbs     string // space-separated
	group     string // "" is the core group
	resources string // space-separated
	names     string // space-separated resourceNames; empty: any object
	why       string
}

// account is a ServiceAccount of the chart, in antreaplus-system, and its
// rights.
type account struct {
	name   string
	grants []grant
}

// The leader election of a controller-runtime manager: its Lease, created
// once, then read and renewed by name, and the events it records there.
func leaderElection(lease string) []grant {
	return []grant{
		{inRelease: true, verbs: "create", group: "coordination.k8s.io", resources: "leases",
			why: "leader election creates its Lease the first time (create cannot be limited to a name)"},
		{inRelease: true, verbs: "get update", group: "coordination.k8s.io", resources: "leases", names: lease,
			why: "leader election reads and renews its own Lease, no other"},
		{inRelease: true, verbs: "create patch", resources: "events",
			why: "leader election records who became leader, on its Lease"},
	}
}

const membershipName = "cluster.clusterset.k8s.io"

var accounts = []account{
	{name: "antreaplus-member-controller", grants: append([]grant{
		{verbs: "get list watch", group: "multicluster.x-k8s.io", resources: "serviceexports",
			why: "exportstatus reports on every ServiceExport of the member"},
		{verbs: "update", group: "multicluster.x-k8s.io", resources: "serviceexports/status",
			why: "exportstatus writes the export's conditions"},
		{verbs: "get list watch", resources: "services nodes",
			why: "exportstatus checks the exported Service, and offers the Nodes' addresses of NodePort exports"},
		{verbs: "get list watch", group: "discovery.k8s.io", resources: "endpointslices",
			why: "exportstatus counts ready endpoints; federatedpolicy resolves imported Services to addresses"},
		{verbs: "get list watch", group: "federation.antreaplus.io", resources: "entityexports",
			why: "entityexport/exportstatus reports on every EntityExport"},
		{verbs: "update", group: "federation.antreaplus.io", resources: "entityexports/status",
			why: "entityexport/exportstatus writes the export's conditions"},
		{verbs: "get list watch", group: "crd.antrea.io", resources: "externalentities",
			why: "entityexport/exportstatus counts the ExternalEntities an EntityExport selects; federatedpolicy reads their networks"},
		{verbs: "get list watch", group: "policy.antreaplus.io", resources: "federatednetworkpolicies",
			why: "federatedpolicy translates every FederatedNetworkPolicy"},
		{verbs: "update", group: "policy.antreaplus.io", resources: "federatednetworkpolicies/status",
			why: "federatedpolicy writes the translation's outcome"},
		{verbs: "update", group: "policy.antreaplus.io", resources: "federatednetworkpolicies/finalizers",
			why: "the derived Antrea policies are owned with blockOwnerDeletion (OwnerReferencesPermissionEnforcement)"},
		{verbs: "create update delete get list watch", group: "crd.antrea.io", resources: "networkpolicies groups",
			why: "federatedpolicy writes the Antrea NetworkPolicies and Groups a federated policy becomes"},
		{verbs: "get list watch", group: "federation.antreaplus.io", resources: "remoteentities clustermemberships networks",
			why: "federatedpolicy: other members' entities as peers, this member's identity and region, and its networks"},
		{verbs: "update", group: "federation.antreaplus.io", resources: "networks/status",
			why: "networks/networkstatus writes each Network's Valid condition"},
		{verbs: "get list watch", group: "cloud.antreaplus.io", resources: "networkinterfaces cloudnativeservices",
			why: "networks/networkstatus: the VPCs this member imports"},
		{verbs: "get list watch", group: "multicluster.x-k8s.io", resources: "serviceimports",
			why: "federatedpolicy: imported Services as peers"},
		{verbs: "get list watch", resources: "namespaces",
			why: "federatedpolicy: policies select namespaces by label"},
	}, leaderElection("antreaplus-member-controller")...)},

	{name: "antreaplus-policy-controller", grants: append([]grant{
		{verbs: "get list watch", group: "crd.antrea.io", resources: "tiers clustergroups groups clusternetworkpolicies networkpolicies externalentities",
			why: "feeder: everything the policy compiler reads"},
		{verbs: "get list watch", resources: "namespaces pods",
			why: "feeder: rules select Pods and namespaces by label (Pods unless --without-pods)"},
		{verbs: "update", group: "crd.antrea.io", resources: "networkpolicies/status clusternetworkpolicies/status",
			why: "policystatus writes how far the agents have realized each policy"},
		{verbs: "get list watch", group: "cloud.antreaplus.io", resources: "virtualmachines",
			why: "agenttoken issues a token per agented VM; agentstatus reports agents on their VM"},
		{verbs: "update", group: "cloud.antreaplus.io", resources: "virtualmachines/status",
			why: "agentstatus writes what each VM's agent reports"},
		{verbs: "update", group: "cloud.antreaplus.io", resources: "virtualmachines/finalizers",
			why: "a token Secret is owned by its VM with blockOwnerDeletion (OwnerReferencesPermissionEnforcement)"},
		{verbs: "create delete get list watch", resources: "secrets",
			why: "agenttoken: a token Secret per VM in the VM's namespace, and the agentless consumer's; agents are authenticated from them"},
		{verbs: "create delete get list update watch", group: "policy.antreaplus.io", resources: "policystats",
			why: "policystats writes the rule counters agents report, one object per policy (owned by it, without blockOwnerDeletion), and deletes those of policies gone"},
		{verbs: "delete get list watch", group: "policy.antreaplus.io", resources: "traces",
			why: "livetrace traces what a Trace asks and deletes it once its TTL has passed"},
		{verbs: "get update", group: "policy.antreaplus.io", resources: "traces/status",
			why: "livetrace writes the computed and observed verdicts"},
	}, leaderElection("antreaplus-policy-controller")...)},

	{name: "antreaplus-cloud-controller", grants: append([]grant{
		{verbs: "get list watch", group: "cloud.antreaplus.io", resources: "cloudprovideraccounts cloudentityselectors",
			why: "account, selector and inventorysync: the accounts and selectors to poll"},
		{verbs: "patch", group: "cloud.antreaplus.io", resources: "cloudprovideraccounts/status cloudentityselectors/status",
			why: "account and selector write readiness and the last poll's outcome"},
		{verbs: "get list watch", resources: "secrets",
			why: "account reads the credentials an account names, in its namespace (any, with --allow-cross-namespace-secrets)"},
		{verbs: "create patch", resources: "events",
			why: "account records readiness changes on the accounts, in their namespaces"},
		{verbs: "create update delete get list watch", group: "cloud.antreaplus.io", resources: "virtualmachines networkinterfaces cloudnativeservices",
			why: "inventorysync writes the imported inventory"},
		{verbs: "deletecollection", group: "cloud.antreaplus.io", resources: "virtualmachines networkinterfaces cloudnativeservices",
			why: "selector removes what a deleted selector imported, at once (DeleteAllOf)"},
		{verbs: "update", group: "cloud.antreaplus.io", resources: "virtualmachines/finalizers networkinterfaces/finalizers cloudnativeservices/finalizers",
			why: "owners with blockOwnerDeletion: a VM of its interfaces, interfaces and services of their ExternalEntities"},
		{verbs: "create update delete get list watch", group: "crd.antrea.io", resources: "externalentities",
			why: "externalentity writes an ExternalEntity per interface and service; agentless enforcement reads them"},
		{verbs: "get list watch create patch", group: "federation.antreaplus.io", resources: "networks",
			why: "inventorysync writes the Networks of the VPCs and VNets it imports from (server-side apply)"},
		{verbs: "get list watch", resources: "namespaces",
			why: "tenancy: the tenants are the Namespaces --tenant-selector picks"},
		{inRelease: true, verbs: "get list watch create update patch delete", group: "coordination.k8s.io", resources: "leases",
			why: "tenancy: a claim Lease per tenant (names not known in advance), contender annotations on others' claims, the replicas' heartbeats"},
		{inRelease: true, verbs: "get", resources: "configmaps", names: "antreaplus-tenant-overlaps",
			why: "tenancy: the tenants claimed in other members, which the member's federation leader writes"},
	}, leaderElection("antreaplus-cloud-controller")...)},

	{name: "antreaplus-federation-manager", grants: []grant{
		{verbs: "get", group: "federation.antreaplus.io", resources: "clustermemberships", names: membershipName,
			why: "waits until this cluster's own ClusterMembership says it is a supervisor (its identity)"},
		{inRelease: true, verbs: "get list watch", group: "federation.antreaplus.io", resources: "memberclusters",
			why: "the registry of members, through a cache of antreaplus-system only"},
		{inRelease: true, verbs: "update", group: "federation.antreaplus.io", resources: "memberclusters/status",
			why: "writes what it observes of each member into the registry's status"},
		{inRelease: true, verbs: "get list watch", resources: "secrets",
			why: "the member credentials the registry names, kept in antreaplus-system"},
		{inRelease: true, verbs: "get list watch create update", group: "coordination.k8s.io", resources: "leases",
			why: "its heartbeat Lease antreaplus-federation-manager, read through its cache"},
	}},

	{name: "antreaplus-coredns", grants: []grant{
		{verbs: "list watch", resources: "services namespaces",
			why: "the kubernetes plugin answers cluster.local (Pods only with `pods verified`, which the Corefile does not use)"},
		{verbs: "list watch", group: "discovery.k8s.io", resources: "endpointslices",
			why: "the endpoints of cluster.local Services and of the federation's imports"},
		{verbs: "list watch", resources: "nodes",
			why: "importcache: the Nodes' zones, for answers by locality"},
		{verbs: "list watch", group: "multicluster.x-k8s.io", resources: "serviceimports",
			why: "importcache: the imports answered under clusterset.local"},
		{verbs: "list watch", group: "federation.antreaplus.io", resources: "clustermemberships", names: membershipName,
			why: "importcache: the federation ID (zone) from this cluster's ClusterMembership, watched by name"},
	}},

	// The in-cluster web console (console.enabled): reads what its views
	// show, and asks the API server who a viewer is and what the viewer
	// may list (cmd/console).
	{name: "antreaplus-console", grants: []grant{
		{verbs: "get list watch", group: "federation.antreaplus.io", resources: "clustermemberships memberclusters networks",
			why: "the federation view (identity, registry) and the clouds view (networks)"},
		{inRelease: true, verbs: "get list watch", group: "coordination.k8s.io", resources: "leases",
			why: "who leads the member, the managers' heartbeats, the tenants' claims: antreaplus-system only"},
		{verbs: "get list watch", resources: "nodes namespaces services",
			why: "regions and zones, tenants, exported Services"},
		{verbs: "get list watch", group: "discovery.k8s.io", resources: "endpointslices",
			why: "the addresses exports offer and the endpoints imported"},
		{verbs: "get list watch", group: "multicluster.x-k8s.io", resources: "serviceexports serviceimports",
			why: "the federated Services view"},
		{verbs: "get list watch", group: "externaldns.k8s.io", resources: "dnsendpoints",
			why: "the ExternalDNS records of the federated Services"},
		{verbs: "get list watch", group: "policy.antreaplus.io", resources: "federatednetworkpolicies",
			why: "the policies view"},
		{verbs: "get list watch", group: "crd.antrea.io", resources: "networkpolicies clusternetworkpolicies",
			why: "the policies view"},
		{verbs: "get list watch", group: "cloud.antreaplus.io", resources: "cloudprovideraccounts cloudentityselectors virtualmachines cloudnativeservices",
			why: "the clouds view"},
		{verbs: "create", group: "authentication.k8s.io", resources: "tokenreviews",
			why: "who a viewer is: the API server reviews the token the viewer signs in with"},
		{verbs: "create", group: "authorization.k8s.io", resources: "subjectaccessreviews",
			why: "what a viewer may list: the views show the rest as not readable"},
	}},

	// The account supervisors reach this member with (the token `antreaplus
	// federation join` issues): the rules of pkg/federation/membership's
	// rbac.go.
	{name: "antreaplus-federation", grants: []grant{
		{verbs: "get list watch", group: "multicluster.x-k8s.io", resources: "serviceexports",
			why: "the leader reads the member's exports"},
		{verbs: "update", group: "multicluster.x-k8s.io", resources: "serviceexports/status",
			why: "the leader writes the Conflict condition of the member's exports"},
		{verbs: "get list watch create update delete", group: "multicluster.x-k8s.io", resources: "serviceimports",
			why: "the leader writes the federation's ServiceImports into the member"},
		{verbs: "update", group: "multicluster.x-k8s.io", resources: "serviceimports/status",
			why: "the leader writes the imports' status"},
		{verbs: "get list watch create update delete", group: "discovery.k8s.io", resources: "endpointslices",
			why: "the leader reads exported endpoints and writes the imports' EndpointSlices"},
		{verbs: "get list watch create update delete", resources: "services",
			why: "the leader reads exported Services and writes the imports' Services"},
		{verbs: "get list watch", resources: "namespaces nodes",
			why: "the leader imports only into namespaces that exist, and reads the Nodes (NodePort addresses, zones, region)"},
		{verbs: "get list watch", group: "federation.antreaplus.io", resources: "clustermemberships entityexports",
			why: "the leader reads the member's identity and its entity exports"},
		{verbs: "update", group: "federation.antreaplus.io", resources: "clustermemberships/status",
			why: "the leader writes the membership's status (leader, term, conditions, the exports withheld from the member)"},
		{verbs: "update", group: "federation.antreaplus.io", resources: "entityexports/status",
			why: "the leader writes where the member's entity exports go (status.clusters, the Exported condition)"},
		{verbs: "get list watch", group: "crd.antrea.io", resources: "externalentities",
			why: "the leader reads the ExternalEntities an EntityExport selects"},
		{verbs: "get list watch create update delete", group: "federation.antreaplus.io", resources: "remoteentities",
			why: "the leader writes the other members' entities as RemoteEntities"},
		{inRelease: true, verbs: "create", group: "coordination.k8s.io", resources: "leases",
			why: "the first leader creates the member's leader Lease (create cannot be limited to a name)"},
		{inRelease: true, verbs: "update", group: "coordination.k8s.io", resources: "leases", names: "antreaplus-federation-leader",
			why: "the leader renews the member's leader Lease, no other"},
		{inRelease: true, verbs: "get list watch", group: "coordination.k8s.io", resources: "leases",
			why: "electors read and watch the leader Lease, peers a supervisor's heartbeat, every leader the tenants' claims (tenantoverlaps, through a cache)"},
		{inRelease: true, verbs: "create", resources: "configmaps",
			why: "tenantoverlaps creates the ConfigMap of the tenants claimed in other members too (create cannot be limited to a name)"},
		{inRelease: true, verbs: "get update delete", resources: "configmaps", names: "antreaplus-tenant-overlaps",
			why: "tenantoverlaps reads, rewrites and, with no overlap left, deletes that ConfigMap, no other"},
		{inRelease: true, verbs: "create", resources: "events",
			why: "tenantoverlaps records a Warning on a claim Lease when its tenant becomes claimed in another member, dnsendpoints on a DNSEndpoint of someone else in the way"},
		{inRelease: true, verbs: "get list create update delete", group: "externaldns.k8s.io", resources: "dnsendpoints",
			why: "dnsendpoints keeps the DNSEndpoints ExternalDNS publishes (listed every resync, no watch; names follow the Services)"},
		{inRelease: true, verbs: "get list watch", group: "federation.antreaplus.io", resources: "memberclusters",
			why: "a supervisor's: the other supervisors read its registry"},
	}},
}
