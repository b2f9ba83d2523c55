// Package serviceexport holds the pure decisions of federated Services: it
// validates a ServiceExport against its Service (the KEP-1645 Valid and Ready
// conditions), chooses which addresses of the exporting cluster are reachable
// from outside it, merges every cluster's export of one namespaced name into
// the desired ServiceImport with KEP-1645 conflict resolution (oldest export
// wins, then cluster ID; one Conflict condition for every export involved),
// and builds the objects a leader writes into a member: the ServiceImport,
// the derived selector-less Service that gives it a cluster-set IP, and one
// set of EndpointSlices per source cluster and address family.
//
// Nothing here does I/O: the member controller (package exportstatus) and the
// leader controller (package serviceimport) read the clusters, call these
// functions and write what they return.
//
// # Addresses
//
// Each exporting cluster contributes the addresses reachable from outside it,
// of both IP families, decided by ChooseAddresses from the exported Service
// alone:
//
//   - the export is annotated federation.antreaplus.io/flat-network=true: the
//     Pod IPs of the Service's endpoints (type PodIP), whatever the Service
//     type; the exporting admin declares the Pods routable;
//   - a LoadBalancer Service with ingress IPs: those IPs, on the Service ports;
//   - a NodePort Service, or a LoadBalancer still waiting for its IP: the
//     address of every node per family (ExternalIP, else InternalIP), on the
//     node ports;
//   - otherwise (ClusterIP, headless): none, and the Ready condition says how
//     to make the Service reachable.
//
// The choice is visible in the export's Ready condition and in the
// federation.antreaplus.io/address-type annotation of every imported
// EndpointSlice.
//
// # Merge
//
// The oldest export (creationTimestamp, then the lowest cluster ID) wins;
// whenever the exports differ, every export of the name gets Conflict=True
// with the reasons in the v1beta1 vocabulary, comma-separated, and a message
// naming the clusters and values:
//
//   - ports: the union, merged by name, then by protocol and number; a port
//     whose name is taken with another number, protocol or appProtocol, or
//     whose protocol and number are taken under another name, is left out. PortConflict
//     whenever the exports' port lists are not identical (as sets).
//   - headless or not, session affinity and its config, internal traffic
//     policy (Cluster when unset), traffic distribution (unset stays unset):
//     the oldest export's. TypeConflict, SessionAffinityConflict,
//     SessionAffinityConfigConflict, InternalTrafficPolicyConflict,
//     TrafficDistributionConflict.
//   - IP families: the union of the exporters' families, IPv4 first. An
//     exporter that serves only part of them is an IPFamilyConflict: clients
//     of the other family do not reach its backends.
//   - labels and annotations: the oldest export's spec.exportedLabels and
//     spec.exportedAnnotations, each as a whole set. LabelsConflict,
//     AnnotationsConflict when another export's set differs. Keys the
//     federation reserves (Reserved) or that are not valid are left out of
//     every export and named in its Valid message (ValidateExport).
//
// # Objects
//
// DesiredImport fills the v1beta1 ServiceImport: the merged spec, the
// cluster-set IPs and their families (ClusterSetIP) or the exporters'
// families (Headless), the exported labels and annotations under the
// federation's own (which win), status.endpointSliceObjects Present and a
// Ready condition (ImportReadyCondition). DerivedService asks the member
// for the exporters' families. DesiredSlices writes a cluster's endpoints
// per address family; for a PreferClose import each ready endpoint carries
// the topology hints of package locality for the importing member's zones.
//
// # Usage
//
// See Example: two members' exports merged, and what a leader writes into a
// third member.
package serviceexport
