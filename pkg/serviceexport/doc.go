// Package serviceexport holds the pure decisions of federated Services: it
// validates a ServiceExport against its Service (the KEP-1645 Valid and Ready
// conditions), chooses which addresses of the exporting cluster are reachable
// from outside it, merges every cluster's export of one namespaced name into
// the desired ServiceImport with KEP-1645 conflict resolution (oldest export
// wins, then cluster ID; one Conflict condition for every export involved),
// and builds the objects a leader writes into a member: the ServiceImport,
// the derived selector-less Service that gives it a cluster-set IP, and one
// set of EndpointSlices per source cluster.
//
// Nothing here does I/O: the member controller (package exportstatus) and the
// leader controller (package serviceimport) read the clusters, call these
// functions and write what they return.
//
// # Addresses
//
// Each exporting cluster contributes the addresses reachable from outside it,
// decided by ChooseAddresses from the exported Service alone:
//
//   - the export is annotated federation.antreaplus.io/flat-network=true: the
//     Pod IPs of the Service's ready endpoints (type PodIP), whatever the
//     Service type; the exporting admin declares the Pods routable;
//   - a LoadBalancer Service with ingress IPs: those IPs, on the Service ports;
//   - a NodePort Service, or a LoadBalancer still waiting for its IP: the
//     address of every node (ExternalIP, else InternalIP), on the node ports;
//   - otherwise (ClusterIP, headless): none, and the Ready condition says how
//     to make the Service reachable.
//
// The choice is visible in the export's Ready condition and in the
// federation.antreaplus.io/address-type annotation of every imported
// EndpointSlice.
//
// # Usage
//
//	exp, validity := serviceexport.FromCluster("member-1", export, svc, slices, nodes)
//	result, ok := serviceexport.Merge([]serviceexport.Export{exp, ...})
//	if ok {
//		svc := serviceexport.DerivedService(ns, name, result)
//		imp := serviceexport.DesiredImport(ns, name, result, svc.Spec.ClusterIPs)
//		slices := serviceexport.DesiredSlices(ns, name, result)
//	}
package serviceexport
