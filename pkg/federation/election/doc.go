// Package election runs, for one member cluster, the leader election among
// the federation managers of all supervisors, on a coordination.k8s.io Lease
// stored in the member itself.
//
// The decision of each round is a pure function, Decide, from what the
// manager observed (the Lease, its own rank in the balanced assignment, the
// clock) to one action: create, acquire, renew, ask for a hand-over, hand
// over, or step down. The Elector only reads the Lease, calls Decide and
// writes. Expiry is judged on the local clock from the moment the manager
// last saw the Lease change (as client-go does), so clock skew between
// supervisors does not matter.
//
// Safety: a leader stops acting (the Fence refuses writes) once it has not
// renewed for RenewDeadline, which is shorter than LeaseDuration, the time
// any other manager waits before taking the Lease. A manager that was paused
// wakes up fenced. Writes carry the Lease's leaseTransitions as their term.
//
// Liveness under load: a renewal answered after RenewDeadline, on a starved
// API server, does not end the leadership. The controllers keep running,
// fenced, and a renewal that succeeds later opens the Fence again in the
// same term (Fence.Resumes tells the controllers to reconcile again); only
// the holder's own unchanged Lease can be renewed so (a Lease another took
// has another resourceVersion: the renewal conflicts and the leader steps
// down). After GiveUpAfter without a renewal, or once another holds the
// Lease, the leader steps down and its controllers stop.
//
// Balance: managers only race for an expired Lease in the order of the
// assignment (rank r waits r retry periods), and the preferred supervisor
// asks the holder, by an annotation on the Lease, to hand the member over;
// the holder stops its controllers and writes the new holder in one update.
//
// # Usage
//
// See ExampleDecide (one round) and ExampleElector (an elector on a member's
// Lease, its controllers and their fence).
package election
