// Package exportscope decides where an export goes: which members a
// ServiceExport or an EntityExport reaches, given the scope its exporter
// set (members by registry label and/or by ClusterID) and what each
// importing member refuses. It is pure: every leader controller that
// writes what an export becomes in a member (ServiceImports and slices,
// RemoteEntities, DNSEndpoint records) filters the exports with Reaches
// before it decides, and the exporter's status is Reach over the registry.
//
// A scope that cannot be read (a selector that does not parse, an empty
// list) reaches the exporter alone, never more than was asked: the caller
// reports the error in the export's Valid condition.
//
// The design is in docs/scoped-exports.md.
package exportscope
