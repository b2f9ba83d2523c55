// Package source keeps, for the console, a live copy of what each member
// holds of the kinds its views show: one informer per member and kind,
// through the member's own client (the user's kubeconfig context, or the
// in-cluster console's account), and for each kind whether it could be
// read: synced, not readable (the API server refused the list: shown as
// such, never as empty), not installed (its CRD is not served), or
// failing. A member's reachability is probed apart (GET /version every few
// seconds), so a member that stops answering is marked so at once while
// its last known objects are kept, flagged stale.
//
// # Usage
//
// See Example: a member's live copy made, run and read. The console's
// hub (pkg/console) makes one per member and calls the views with what it
// holds.
package source
