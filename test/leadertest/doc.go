// Package leadertest runs a leader controller (manager.LeaderController)
// in-process against real test clusters, with the federation view, the
// supervisor's registry and the election that the test controls: a member
// can be made readable, unreadable, unreachable or gone from the registry at
// will, and the controller's writes fenced.
//
// # Usage
//
// The compiled examples are the leader controllers' own tests:
// pkg/entityimport/leader_test.go (setup: two started member clusters in a
// View, a Registry, Lead of the controller in member-2; then a member made
// unreadable with an unstarted Cluster, unreachable, or gone from the
// Registry) and pkg/serviceimport/leader_test.go. A compiled example here
// would import test/framework, which puts a package in the cluster lane
// (hack/packages.sh).
package leadertest
