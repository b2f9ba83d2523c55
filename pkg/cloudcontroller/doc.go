// Package cloudcontroller wires the cloud controller's reconcilers into a
// controller-runtime manager: the CloudProviderAccount reconciler (account),
// the CloudEntitySelector reconciler (selector) and the inventory poll loop
// (inventorysync), sharing the live providers (accountprovider) and the
// outcome of the last polls (pollstatus). The ExternalEntity controller is
// wired on its own (pkg/externalentity), so that it can run where the
// cloud controller does not.
//
// # Usage
//
// See ExampleSetupWithManager.
//
// # How the parts talk
//
// State lives in the API server; the only shared memory is two small
// stores, each with one writer. The account reconciler builds an account's
// provider from its Secret and puts it in the accountprovider.Set, whose
// events make the poll loop poll that account's regions at once. The poll
// loop records each region's outcome in the pollstatus.Store, whose events
// make the account and selector reconcilers recompute their status. Which
// selector an account is bound to is not stored anywhere but the account's
// status: every reconciler computes it with binding.Resolve from what the
// cache holds. See the doc of each package for its rules.
package cloudcontroller
