// Package membercontroller runs the controllers of one member cluster, with
// the member's own credentials (cmd/member-controller is its command):
//
//   - ServiceExport status: the Valid and Ready conditions of KEP-1645
//     (package serviceexport/exportstatus); the member's leader writes the
//     Conflict condition;
//   - EntityExport status (package entityexport/exportstatus);
//   - FederatedNetworkPolicy translation into Antrea NetworkPolicies and
//     Groups (package federatedpolicy).
//
// The controllers run in one controller-runtime manager. When the API
// server answers again after an outage, the manager is replaced by a fresh
// one (package outage), whose informers list at once instead of waiting
// out client-go's back-off. The program registers the controllers' metrics
// once, on the registry it serves, with RegisterMetrics; they read
// whichever manager's cache is current.
//
// # Usage
//
// See ExampleRun.
package membercontroller
