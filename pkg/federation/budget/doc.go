// Package budget bounds the reconciles one supervisor runs at once, over
// every leader controller of every member it leads, and gives its Lease
// renewals the right of way.
//
// A supervisor leading ten members runs some fifteen workers per member
// (package leaderloop). When a burst of exports is imported, all of them
// may be runnable together; if, on a machine short of CPU, the election's
// goroutine waits behind them in Go's run queue, renewals are sent and
// answered late and leaders that are alive lose their members (one
// hundred exports into 30 members, docs/scale.md). A Budget admits at most
// Limit reconciles at once; while a renewal of this supervisor's has been
// in flight for LateAfter or more, it admits at most Floor, so that the
// renewal gets the CPU the reconciles leave. Reconciles already running
// are not stopped; none waits for more than the renewal's own timeout.
//
// The federation manager runs without a limit unless --max-reconciles is
// set: measured at 10 light members (docs/scale.md), a budget of 16 did not
// change how often leaders changed, and a burst of imports took twice as
// long. Waiters are woken together and race, so the members led do not get
// equal shares.
//
// Admit is the decision, pure and table-tested; Budget holds the counts.
package budget
