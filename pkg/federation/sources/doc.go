// Package sources tells a leader controller what it may do with what each
// member of the federation exports: read it, keep what was imported from it,
// or withdraw it. Every leader controller that imports into the member it
// leads (package serviceimport, package entityimport) shares these rules, so
// that a member's Services and entities are kept and withdrawn alike.
//
// A Tracker hooks the controller's event handlers onto the informers of
// every member's cache (manager.Member.Federation) and judges each member:
//
//   - Live: its informers are synced: what it exports is read.
//   - Kept: they are not (the supervisor just started, its cache was
//     replaced after an outage, the member cannot be reached yet): what was
//     imported from it stays exactly as it is.
//   - Withdrawn: the federation has marked it unreachable
//     (MemberInfo.UnreachableSince) for UnreachableHoldDown straight, as
//     this tracker saw it: what was imported from it is withdrawn.
//
// A cluster whose imports remain but which is missing from the manager's
// view is kept while it is still in the supervisor's registry (its session
// is starting) and withdrawn once it is gone from it (it left the
// federation): see StillRegistered. Registry answers, with the member's
// registry labels, are cached for a few seconds.
//
// Refresh, which every leader controller of every member led calls each
// second, looks at every member only when something it compares may have
// changed: the federation view's version (manager.FederationView.Version),
// an event that marks the tracker dirty (a hook in place, a member's
// refusal changed), a hold-down that ends, or a member still being hooked
// or synced. Otherwise it is quiet and returns at once (Looks counts both).
//
// Handler adapts a function
// of (event type, object, old object) to an informer's event handler.
//
// # Usage
//
// See ExampleTracker, and package leaderloop's example for a whole leader
// controller.
package sources
