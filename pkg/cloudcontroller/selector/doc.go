// Package selector is the CloudEntitySelector reconciler of the cloud
// controller. It tells the user whether the selector is accepted (its
// account exists, allows the selector's namespace, and is bound to it: one
// selector per account, the first by creation time wins), how many
// VirtualMachines, NetworkInterfaces and CloudNativeServices it imported and
// whether they follow the last poll, and it removes imported objects that
// nothing maintains any more.
//
// # Usage
//
// See ExampleReconciler (it needs binding.AddIndex on the manager).
//
// # Garbage collection
//
// Imported objects carry the selector as owner, so the API server's garbage
// collector deletes them with it. This reconciler does not rely on that
// alone; by label, it deletes:
//
//   - everything a selector imported once it is deleted, refused or no
//     longer bound to its account;
//   - objects of a region the account no longer lists;
//   - objects labelled with the selector but another account (a selector
//     deleted and created again with the same name).
//
// It lists from the cache first and deletes only what it found, so a
// reconcile with nothing to remove writes nothing.
package selector
