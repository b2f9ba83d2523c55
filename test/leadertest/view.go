package leadertest

import (
	"context"
	"maps"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// View is a FederationView whose members the test sets.
type View struct {
	mu      sync.Mutex
	members map[string]manager.MemberInfo
	// version counts the calls of Set and Remove.
	version uint64
}

// NewView returns a view of members.
func NewView(members ...manager.MemberInfo) *View {
	v := &View{members: map[string]manager.MemberInfo{}}
	for _, mi := range members {
		v.Set(mi)
	}
	return v
}

// Members implements manager.FederationView.
func (v *View) Members() []manager.MemberInfo {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []manager.MemberInfo
	for _, id := range slices.Sorted(maps.Keys(v.members)) {
		out = append(out, v.members[id])
	}
	return out
}

// Version implements manager.FederationView: every Set and Remove changes it.
func (v *View) Version() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.version
}

// Set adds or replaces a member.
func (v *View) Set(mi manager.MemberInfo) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.members[mi.ClusterID] = mi
	v.version++
}

// Remove drops a member from the view.
func (v *View) Remove(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.members, id)
	v.version++
}

// Registry is a supervisor's registry of MemberClusters, held in memory:
// it answers Get of a MemberCluster of the members the test set present
// (the leader controllers read it only to know whether a member they have
// no session for is still registered; labels come with the view).
type Registry struct {
	client.Reader
	mu      sync.Mutex
	members map[string]bool
}

// NewRegistry returns a registry holding ids.
func NewRegistry(ids ...string) *Registry {
	r := &Registry{members: map[string]bool{}}
	for _, id := range ids {
		r.SetPresent(id, true)
	}
	return r
}

// Get implements client.Reader for MemberClusters.
func (r *Registry) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.members[key.Name] {
		return apierrors.NewNotFound(schema.GroupResource{Group: federationv1alpha1.GroupVersion.Group, Resource: "memberclusters"}, key.Name)
	}
	if mc, isMC := obj.(*federationv1alpha1.MemberCluster); isMC {
		*mc = federationv1alpha1.MemberCluster{}
		mc.Name, mc.Namespace = key.Name, key.Namespace
		mc.Spec.ClusterID = key.Name
	}
	return nil
}

// SetPresent adds a member to the registry, or removes it.
func (r *Registry) SetPresent(id string, present bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if present {
		r.members[id] = true
	} else {
		delete(r.members, id)
	}
}
