package sources

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/manager"
)

// The states of members with informers are tested against real clusters
// (packages serviceimport and entityimport); these tests cover the clock
// and the registry.

// clock is a time the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

type view []manager.MemberInfo

func (v view) Members() []manager.MemberInfo { return v }

// Version is the same for every view: a test that changes one builds a new tracker.
func (v view) Version() uint64 { return 0 }

func newTracker(reg client.Reader, c *clock) *Tracker {
	t := New(manager.Member{ClusterID: "member-1", Federation: view{}}, Options{UnreachableHoldDown: 5 * time.Second,
		Registry: reg, RegistryNamespace: "antreaplus-system"}, logr.Discard())
	t.now = c.now
	return t
}

func TestStateHoldsDownUnreachableMembers(t *testing.T) {
	c := &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	tr := newTracker(nil, c)
	long := c.t.Add(-time.Hour)
	steps := []struct {
		name    string
		advance time.Duration
		mi      manager.MemberInfo
		want    State
	}{
		{name: "not connected: kept", mi: manager.MemberInfo{ClusterID: "m"}, want: Kept},
		{name: "marked unreachable long ago, first seen now: kept", mi: manager.MemberInfo{ClusterID: "m", UnreachableSince: &long}, want: Kept},
		{name: "still within the hold-down", advance: 4 * time.Second, mi: manager.MemberInfo{ClusterID: "m", UnreachableSince: &long}, want: Kept},
		{name: "past the hold-down: withdrawn", advance: time.Second, mi: manager.MemberInfo{ClusterID: "m", UnreachableSince: &long}, want: Withdrawn},
		{name: "reachable again: kept until read", mi: manager.MemberInfo{ClusterID: "m", Reachable: true}, want: Kept},
		{name: "unreachable again: the hold-down starts over", advance: time.Minute, mi: manager.MemberInfo{ClusterID: "m", UnreachableSince: &long}, want: Kept},
		{name: "and ends", advance: 5 * time.Second, mi: manager.MemberInfo{ClusterID: "m", UnreachableSince: &long}, want: Withdrawn},
	}
	for _, s := range steps {
		c.t = c.t.Add(s.advance)
		if got := tr.State(s.mi); got != s.want {
			t.Fatalf("%s: state %s, want %s", s.name, got, s.want)
		}
	}
}

// registry answers from a map of labels, or with err; it counts its reads.
type registry struct {
	client.Reader
	members map[string]map[string]string
	err     error
	reads   int
}

func (r *registry) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	r.reads++
	if r.err != nil {
		return r.err
	}
	labels, ok := r.members[key.Name]
	if !ok || key.Namespace != "antreaplus-system" {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "memberclusters"}, key.Name)
	}
	obj.(*federationv1alpha1.MemberCluster).Labels = maps.Clone(labels)
	return nil
}

func TestRegistry(t *testing.T) {
	ctx := t.Context()
	c := &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	reg := &registry{members: map[string]map[string]string{"member-2": {"region": "eu"}}}
	tr := newTracker(reg, c)
	if !tr.StillRegistered(ctx, "member-2") || tr.StillRegistered(ctx, "member-3") {
		t.Error("member-2 should be registered, member-3 not")
	}
	// Answers are reused for a few seconds.
	delete(reg.members, "member-2")
	if reads := reg.reads; !tr.StillRegistered(ctx, "member-2") || reg.reads != reads {
		t.Errorf("a fresh answer was not reused (%d reads)", reg.reads-reads)
	}
	c.t = c.t.Add(registryTTL)
	if tr.StillRegistered(ctx, "member-2") {
		t.Error("member-2 left the registry, still registered after the TTL")
	}
	// A failed read counts as registered.
	reg.err = errors.New("connection refused")
	c.t = c.t.Add(registryTTL)
	if !tr.StillRegistered(ctx, "member-2") {
		t.Error("a failed read should count as registered")
	}
	// Without a registry every cluster is registered.
	if none := newTracker(nil, c); !none.StillRegistered(ctx, "x") {
		t.Error("without a registry: x is not registered")
	}
}

func TestHandlerUnwrapsTombstones(t *testing.T) {
	var got []string
	h := Handler(func(ev EventType, obj, old client.Object) {
		got = append(got, fmt.Sprintf("%d:%s:%t", ev, obj.GetName(), old != nil))
	})
	mc := func(name string) *federationv1alpha1.MemberCluster {
		m := &federationv1alpha1.MemberCluster{}
		m.Name = name
		return m
	}
	h.OnAdd(mc("a"), false)
	h.OnUpdate(mc("a"), mc("b"))
	h.OnDelete(mc("c"))
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "d", Obj: mc("d")})
	h.OnDelete("not an object")
	if want := []string{"0:a:false", "1:b:true", "2:c:false", "2:d:false"}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// TestRefusalSignatureByValue: the same refusal read twice (two copies, as
// every event of a ClusterMembership brings) signs the same; a change does not.
func TestRefusalSignatureByValue(t *testing.T) {
	spec := func(ids ...string) *federationv1alpha1.ImportsSpec {
		return &federationv1alpha1.ImportsSpec{RefuseFrom: ids,
			RefuseFromSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "us"}}}
	}
	if a, b := refusalSignature(spec("m9")), refusalSignature(spec("m9")); a != b {
		t.Errorf("two copies of one refusal sign %q and %q", a, b)
	}
	if a, b := refusalSignature(spec("m9")), refusalSignature(spec("m8")); a == b {
		t.Errorf("two refusals sign the same: %q", a)
	}
	if refusalSignature(nil) != "" {
		t.Error("no refusal signs something")
	}
}
