// Package inventorysync is the cloud controller's poll loop: one work item
// per region of each CloudProviderAccount. Each reconcile polls the region
// through the account's provider, computes the VirtualMachine,
// NetworkInterface and CloudNativeService objects the bound
// CloudEntitySelector imports (pkg/cloud/inventory.Desired), diffs them with
// what is stored (inventory.Diff) and writes only the difference, then
// requeues itself after the account's poll interval.
//
// # Usage
//
// See ExampleReconciler (it needs binding.AddIndex on the manager) and
// ExampleBackoff.
//
// # Behaviour
//
//   - Interval: spec.pollIntervalSeconds (default 60), never below
//     Options.MinPollInterval (default 30 s, the API's minimum), unless
//     Options.PollIntervalOverride is set (tests and the development
//     sandbox).
//   - A poll where nothing changed writes nothing: Diff is empty and no
//     status is touched (pollstatus only announces changes).
//   - A failed poll (throttled after the provider's own retries, refused
//     credentials, unavailable region, anything else) changes no imported
//     object: what is stored stays as of the last good poll. The next poll
//     backs off exponentially, 2x, 4x, then 8x the interval (at most 30
//     minutes beyond it), and the account's status carries the cloud's error.
//   - Without a bound selector a region is polled once per provider
//     (credentials) to fill the account's CredentialsValid and
//     InventoryPolled conditions, and not again until a selector binds.
//   - Writes: VMs are created before their interfaces, which get the VM as
//     controlling owner; VMs and services get the selector as owner. Names
//     are deterministic (inventory.ObjectName), so a controller restarted in
//     the middle of an import finds what it created and completes it: no
//     duplicates, and an AlreadyExists is not an error. Writes run
//     Options.Workers at a time. Writes that fail (a conflict with a stale
//     cache, a refusal) are retried by the next poll, not at once, so that a
//     failing write never makes the cloud polled faster; the selector's
//     InventorySynced condition says ApplyFailed meanwhile.
//   - Objects of a region are listed by the account and selector labels
//     from the manager's cache; objects of regions no longer polled, or of
//     a selector no longer bound, are removed by the selector reconciler.
package inventorysync
