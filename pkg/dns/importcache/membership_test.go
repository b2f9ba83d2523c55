package importcache

import (
	"testing"

	"k8s.io/client-go/rest"
)

// TestClusterIDAcrossRenewal: the cluster ID follows the federation ID
// through a renewal: carried over while the new informer lists, dropped
// with it when the ClusterMembership went away.
func TestClusterIDAcrossRenewal(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1"} // never contacted
	for _, listed := range []bool{true, false} {
		prev, err := newMembership(cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		o := membershipObject("fed")
		o.Object["spec"].(map[string]any)["clusterID"] = "member-1"
		prev.set(o)
		if got := prev.clusterID(); got != "member-1" {
			t.Fatalf("clusterID() = %q, want member-1", got)
		}
		next, err := newMembership(cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		next.carryOver(prev)
		carried := next.id.Load()
		if got := next.clusterID(); got != "member-1" {
			t.Fatalf("while listing: %q, want the previous member-1", got)
		}
		if listed {
			if err := next.store.Add(o); err != nil {
				t.Fatal(err)
			}
			next.set(o)
		}
		next.forgetUnlisted(carried)
		want := map[bool]string{true: "member-1", false: ""}[listed]
		if got := next.clusterID(); got != want {
			t.Errorf("listed=%v: clusterID() = %q, want %q", listed, got, want)
		}
	}
	fixed, err := newMembership(cfg, "fed")
	if err != nil {
		t.Fatal(err)
	}
	if got := fixed.clusterID(); got != "" {
		t.Errorf("with a fixed federation ID: clusterID() = %q, want none", got)
	}
}
