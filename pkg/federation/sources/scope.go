package sources

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// refusal is what one member's ClusterMembership refuses to import, as
// last seen in its cache.
type refusal struct {
	spec    *federationv1alpha1.ImportsSpec
	decided exportscope.Refusal
	err     error
	// sig is refusalSignature(spec), computed once per change.
	sig string
}

// membershipHandler records what member id refuses each time its
// ClusterMembership changes; Refresh then reports a change.
func (t *Tracker) membershipHandler(id string) toolscache.ResourceEventHandler {
	return Handler(func(ev EventType, o, _ client.Object) {
		cm, ok := o.(*federationv1alpha1.ClusterMembership)
		if !ok || cm.Name != federationv1alpha1.MembershipName {
			return
		}
		var spec *federationv1alpha1.ImportsSpec
		if ev != Deleted && cm.Spec.Imports != nil {
			spec = cm.Spec.Imports.DeepCopy()
		}
		decided, err := exportscope.RefusalOf(spec)
		if err != nil {
			t.log.Error(err, "A member's refusal of imports cannot be read: it refuses every other member until it is fixed", "source", id)
		}
		sig := refusalSignature(spec)
		t.mu.Lock()
		if t.refusals[id].sig != sig {
			t.dirty = true
		}
		t.refusals[id] = refusal{spec: spec, decided: decided, err: err, sig: sig}
		t.mu.Unlock()
	})
}

// addMembership watches a member's ClusterMembership for what it refuses,
// without waiting for the informer to sync: a member that does not answer
// must not hold up the tracker's refresh (it held up every reconcile of the
// led member while another member was cut off).
func (t *Tracker) addMembership(ctx context.Context, h *hook, id string) error {
	return h.add(ctx, id, &federationv1alpha1.ClusterMembership{}, t.membershipHandler(id), cache.BlockUntilSynced(false))
}

// ScopeMember is member id as export scopes see it: its registry labels
// and what its ClusterMembership refuses (nothing while unread).
func (t *Tracker) ScopeMember(id string, labels map[string]string) exportscope.Member {
	t.mu.Lock()
	defer t.mu.Unlock()
	return exportscope.Member{ClusterID: id, Labels: labels, Refuses: t.refusals[id].decided}
}

// ScopeMembers are the registry's members as export scopes see them.
func (t *Tracker) ScopeMembers(members []manager.MemberInfo) []exportscope.Member {
	out := make([]exportscope.Member, 0, len(members))
	for _, mi := range members {
		out = append(out, t.ScopeMember(mi.ClusterID, mi.Labels))
	}
	return out
}

// Importer is the led member as export scopes see it, among members (the
// federation view the caller read).
func (t *Tracker) Importer(members []manager.MemberInfo) exportscope.Member {
	for _, mi := range members {
		if mi.ClusterID == t.m.ClusterID {
			return t.ScopeMember(mi.ClusterID, mi.Labels)
		}
	}
	return t.ScopeMember(t.m.ClusterID, nil)
}

// Reaches tells whether an export of member id (registry labels), with
// scope s, reaches the importer.
func (t *Tracker) Reaches(s exportscope.Scope, id string, labels map[string]string, importer exportscope.Member) bool {
	ok, _ := exportscope.Reaches(s, t.ScopeMember(id, labels), importer)
	return ok
}

// refusalSignatureOf is what member id refuses now, by value.
func (t *Tracker) refusalSignatureOf(id string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refusals[id].sig
}

// refusalSignature is what a refusal says, by value: the same refusal
// read again (a status update of its ClusterMembership) signs the same.
func refusalSignature(spec *federationv1alpha1.ImportsSpec) string {
	if spec == nil {
		return ""
	}
	out := "refuses:" + strings.Join(spec.RefuseFrom, ",")
	if spec.RefuseFromSelector != nil {
		out += "/" + metav1.FormatLabelSelector(spec.RefuseFromSelector)
	}
	return out
}
