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

// Set adds or replaces a member.
func (v *View) Set(mi manager.MemberInfo) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.members[mi.ClusterID] = mi
}

// Remove drops a member from the view.
func (v *View) Remove(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.members, id)
}

// Registry is a supervisor's registry of MemberClusters, held in memory:
// it answers Get of a MemberCluster with the labels the test set.
type Registry struct {
	client.Reader
	mu      sync.Mutex
	members map[string]map[string]string
}

// NewRegistry returns a registry holding ids, without labels.
func NewRegistry(ids ...string) *Registry {
	r := &Registry{members: map[string]map[string]string{}}
	for _, id := range ids {
		r.SetPresent(id, true)
	}
	return r
}

// Get implements client.Reader for MemberClusters.
func (r *Registry) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	labels, ok := r.members[key.Name]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Group: federationv1alpha1.GroupVersion.Group, Resource: "memberclusters"}, key.Name)
	}
	if mc, isMC := obj.(*federationv1alpha1.MemberCluster); isMC {
		*mc = federationv1alpha1.MemberCluster{}
		mc.Name, mc.Namespace, mc.Labels = key.Name, key.Namespace, maps.Clone(labels)
		mc.Spec.ClusterID = key.Name
	}
	return nil
}

// SetPresent adds a member to the registry, or removes it.
func (r *Registry) SetPresent(id string, present bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch _, ok := r.members[id]; {
	case !present:
		delete(r.members, id)
	case !ok:
		r.members[id] = map[string]string{}
	}
}

// SetLabels registers a member with labels.
func (r *Registry) SetLabels(id string, labels map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.members[id] = maps.Clone(labels)
}
