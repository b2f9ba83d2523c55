// Package policystats writes, for every policy enforced by VM agents, a
// PolicyStats object (policy.antreaplus.io) with what its rules decided:
// the agents' nftables counters, reported through the distribution
// protocol, summed per rule over every agent of the member.
//
// Agents report totals, not increments (wire.Report.RuleCounts), and each
// object keeps the last totals of every point: a report received twice, an
// agent restarting (it keeps what replaced tables counted in its state
// file) or the controller restarting (it starts from the objects) never
// counts anything twice. Compute, the decision, is pure; Writer reads the
// server's reports and the objects, and writes.
//
// # Usage
//
// controlplane.Setup runs a Writer in the policy controller; `antreaplus
// policy stats` reads the objects of every member. ExampleCompute sums two
// agents' counts of one policy.
package policystats
