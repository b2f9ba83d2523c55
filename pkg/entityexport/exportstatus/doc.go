// Package exportstatus is the member controller that keeps the status of
// every EntityExport of its own cluster true: observedGeneration,
// exportedEntities (how many ExternalEntities of its Namespace the export
// selects) and the Valid condition, whose reason and message say what is
// wrong with the export and how to fix it (package entityexport decides).
//
// It is the only writer of an EntityExport's status. It watches the exports
// and the ExternalEntities of their Namespaces (an entity that appears,
// goes, or changes its labels changes the count), and writes only when the
// status changed, with the resourceVersion it read.
//
// # Usage
//
// See ExampleReconciler.
package exportstatus
