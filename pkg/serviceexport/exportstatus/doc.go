// Package exportstatus is the member controller that keeps the KEP-1645
// conditions of every ServiceExport in its own cluster true.
//
// Condition ownership, one writer per condition type so that writers never
// undo each other:
//
//   - Valid and Ready are written here, in the exporting member, from the
//     member's own Service, EndpointSlices and nodes. Valid's message names
//     the exported labels and annotations left out (reserved or not valid
//     keys; see serviceexport.ValidateExport). Ready is the pull-model
//     Ready of the KEP ("ready to be pulled"): its message names the
//     addresses the export offers (package serviceexport chooses them) or
//     says what to change when it offers none.
//   - Conflict is written by the member's leader (package serviceimport),
//     the only one that sees the exports of every member.
//
// Both writers update the status with the resourceVersion they read,
// change only their own condition types, and write only when a condition
// changed.
//
// # Usage
//
// See ExampleReconciler.
package exportstatus
