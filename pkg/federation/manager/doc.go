// Package manager is the federation manager that runs in every supervisor.
//
// For every MemberCluster in its registry it keeps a session: a connection
// to the member with the member's least-privilege credentials, an elector
// taking part in the member's leader election (package election), a watch on
// the member's ServiceExports so it can take the member over at once, and,
// when the member is itself a supervisor, a look at that supervisor's
// heartbeat and registry. While it leads a member it runs the member's
// leader controllers, fenced by the election.
//
// It writes only the status of its own registry: whether it reaches each
// member, the member's leader and Lease renewal, and, combining the reports
// of all supervisors (package health), whether the member has been
// unreachable from the whole federation for longer than the grace period.
//
// # Usage
//
// See ExampleManager (the manager in a controller-runtime manager) and
// ExampleLeaderController (a leader controller of one's own).
package manager
