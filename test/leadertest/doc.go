// Package leadertest runs a leader controller (manager.LeaderController)
// in-process against real test clusters, with the federation view, the
// supervisor's registry and the election that the test controls: a member
// can be made readable, unreadable, unreachable or gone from the registry at
// will, and the controller's writes fenced.
//
// # Usage
//
//	a := leadertest.Cluster(t, clusters, "member-1", true)
//	b := leadertest.Cluster(t, clusters, "member-2", true)
//	view := leadertest.NewView(
//		manager.MemberInfo{ClusterID: "member-1", Cluster: a, Reachable: true},
//		manager.MemberInfo{ClusterID: "member-2", Cluster: b, Reachable: true})
//	registry := leadertest.NewRegistry("member-1", "member-2")
//	leadertest.Lead(t, serviceimport.New(registry, "antreaplus-system"), "member-1", a, view)
//	view.Set(manager.MemberInfo{ClusterID: "member-2", Cluster: leadertest.Cluster(t, clusters, "member-2", false)}) // unreadable
package leadertest
