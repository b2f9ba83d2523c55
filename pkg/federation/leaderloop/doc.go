// Package leaderloop is the loop a leader controller runs in the member it
// leads (package serviceimport, package entityimport). The controller keeps
// what is its own (what it reads, its keys, how one key is reconciled, its
// metrics); the loop does the rest, alike for every such controller:
//
//   - a client of the led member of its own for the writes, limited to
//     WriteQPS (WriteBurst), apart from the member's shared client, which is
//     rate-limited for the whole session (elections, informers);
//   - a rate-limited work queue of keys, named "<controller>-<member>", that
//     the controller's event handlers add to;
//   - on Run: Start (the controller hooks its handlers on the led member),
//     a look at the source members and a wait of at most 5 s for their
//     caches, every key enqueued, Workers workers; then, every Period, the
//     source members are looked at again and, when one changed state or
//     the Fence opened again after a late renewal (Fence.Resumes: the
//     writes it refused were not retried), every key is enqueued; every
//     Resync, every key is enqueued;
//   - per key: a place in the supervisor's budget (Member.Budget, package
//     budget), shared by every controller of every member it leads, which
//     narrows while a Lease renewal is late; then the duration and the result (ok, error, fenced) counted on
//     the controller's metrics, with the label member. A reconcile that
//     fails with ErrFenced (a write the election no longer allows) or ends
//     with its context is not retried; another failure is retried,
//     rate-limited (5 ms doubling up to 30 s), and logged: at V(1) for a
//     conflict or an already-exists (a write based on a stale cache), else
//     at the default level.
//
// Run returns nil once its context ends and every worker has stopped.
//
// # Usage
//
// See Example: a leader controller built on the loop and a sources.Tracker.
package leaderloop
