package membership

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// t0 is the reference time of the tests.
var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func at(d time.Duration) *metav1.Time { t := metav1.NewTime(t0.Add(d)); return &t }

// entry builds a registry entry; mods change it.
func entry(id, server string, mods ...func(*federationv1alpha1.MemberCluster)) federationv1alpha1.MemberCluster {
	e := federationv1alpha1.MemberCluster{Spec: federationv1alpha1.MemberClusterSpec{ClusterID: id, Server: server}}
	e.Name = id
	for _, m := range mods {
		m(&e)
	}
	return e
}

func asSupervisor(e *federationv1alpha1.MemberCluster) { e.Spec.Supervisor = true }

// probed marks an entry as reported by a manager at t0+d.
func probed(by string, d time.Duration, reachable bool) func(*federationv1alpha1.MemberCluster) {
	return func(e *federationv1alpha1.MemberCluster) {
		e.Status.ReportedBy, e.Status.LastProbeTime, e.Status.Reachable = by, at(d), reachable
	}
}

func led(leader string) func(*federationv1alpha1.MemberCluster) {
	return func(e *federationv1alpha1.MemberCluster) { e.Status.Leader = leader }
}

func condition(typ string, status metav1.ConditionStatus, reason string) func(*federationv1alpha1.MemberCluster) {
	return func(e *federationv1alpha1.MemberCluster) {
		e.Status.Conditions = append(e.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: reason + " message"})
	}
}

func membership(fed, id string, supervisor bool) *federationv1alpha1.ClusterMembership {
	return &federationv1alpha1.ClusterMembership{Spec: federationv1alpha1.ClusterMembershipSpec{FederationID: fed, ClusterID: id, Supervisor: supervisor}}
}

func cluster(name, host string) Cluster {
	return Cluster{Name: name, Config: &rest.Config{Host: host}}
}
