package policycompiler

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
)

// world is a random set of objects that changes one object at a time.
type world struct {
	rng     *rand.Rand
	objects map[string]any
}

var (
	worldNamespaces = []string{"red", "blue", "green"}
	worldApps       = []string{"web", "db", "cache"}
	worldTeams      = []string{"a", "b"}
)

func (w *world) pick(values []string) string { return values[w.rng.IntN(len(values))] }

func (w *world) randomEE(i int) *antreav1alpha2.ExternalEntity {
	ee := newEE(worldNamespaces[i%len(worldNamespaces)], fmt.Sprintf("ee%d", i), fmt.Sprintf("10.%d.0.%d", w.rng.IntN(2), i),
		eeLabels("app", w.pick(worldApps), "team", w.pick(worldTeams)), eeNode(fmt.Sprintf("vm%d", w.rng.IntN(4))))
	if w.rng.IntN(2) == 0 {
		ee.Spec.Ports = []antreav1alpha2.NamedPort{{Name: "svc", Port: int32(8000 + w.rng.IntN(3))}}
	}
	return ee
}

func (w *world) randomNamespace(name string) *Namespace {
	lbls := map[string]string{"env": w.pick([]string{"prod", "dev"})}
	if w.rng.IntN(3) > 0 {
		lbls["team"] = w.pick(worldTeams)
	}
	return &Namespace{Name: name, Labels: lbls}
}

func (w *world) randomPeer() antreav1beta1.NetworkPolicyPeer {
	switch w.rng.IntN(6) {
	case 0:
		return antreav1beta1.NetworkPolicyPeer{IPBlock: &antreav1beta1.IPBlock{CIDR: "10.0.0.0/16", Except: []string{"10.0.0.0/28"}}}
	case 1:
		return antreav1beta1.NetworkPolicyPeer{Group: w.pick([]string{"g1", "g2"})}
	case 2:
		return antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: matchLabels("app", w.pick(worldApps)), NamespaceSelector: matchLabels("env", "prod")}
	case 3:
		return antreav1beta1.NetworkPolicyPeer{PodSelector: matchLabels("app", w.pick(worldApps))}
	}
	return antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: matchLabels("app", w.pick(worldApps))}
}

func (w *world) randomRule(namespaced bool) antreav1beta1.Rule {
	actions := []antreav1beta1.RuleAction{"Allow", "Drop", "Reject", "Pass"}
	r := newRule(actions[w.rng.IntN(len(actions))])
	for range w.rng.IntN(3) {
		peer := w.randomPeer()
		if !namespaced && w.rng.IntN(4) == 0 {
			peer = antreav1beta1.NetworkPolicyPeer{ExternalEntitySelector: &metav1.LabelSelector{}, Namespaces: &antreav1beta1.PeerNamespaces{Match: antreav1beta1.NamespaceMatchSelf}}
			if w.rng.IntN(2) == 0 {
				peer.Namespaces = &antreav1beta1.PeerNamespaces{SameLabels: []string{"team"}}
			}
		}
		r.From = append(r.From, peer)
		r.To = append(r.To, peer)
	}
	if w.rng.IntN(2) == 0 {
		port := intstr.FromString("svc")
		if w.rng.IntN(2) == 0 {
			port = intstr.FromInt(443)
		}
		r.Ports = []antreav1beta1.NetworkPolicyPort{{Port: &port}}
	}
	return r
}

func (w *world) randomPolicy(i int) any {
	tier := w.pick([]string{"", "emergency", "baseline", "custom"})
	opts := []specOption{inTier(tier), appliedToEEs("app", w.pick(worldApps))}
	namespaced := i%2 == 0
	for range 1 + w.rng.IntN(3) {
		in, out := w.randomRule(namespaced), w.randomRule(namespaced)
		in.To, out.From = nil, nil
		opts = append(opts, ingress(in), egress(out))
	}
	if namespaced {
		return newANNP(worldNamespaces[i%len(worldNamespaces)], fmt.Sprintf("p%d", i), float64(w.rng.IntN(3)), opts...)
	}
	return newACNP(fmt.Sprintf("p%d", i), float64(w.rng.IntN(3)), opts...)
}

// randomGroup returns a ClusterGroup or a Group; a Group gN lives in
// Namespace N, so that a key names one object.
func (w *world) randomGroup() any {
	n := w.rng.IntN(2)
	name := fmt.Sprintf("g%d", n+1)
	spec := antreav1beta1.GroupSpec{ExternalEntitySelector: matchLabels("team", w.pick(worldTeams))}
	if w.rng.IntN(3) == 0 {
		spec = antreav1beta1.GroupSpec{IPBlocks: []antreav1beta1.IPBlock{{CIDR: "10.1.0.0/24"}}}
	}
	if w.rng.IntN(2) == 0 {
		return &antreav1beta1.ClusterGroup{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	}
	return &antreav1beta1.Group{ObjectMeta: metav1.ObjectMeta{Namespace: worldNamespaces[n], Name: name}, Spec: spec}
}

// mutate changes, adds or deletes one random object and returns it and
// whether it was deleted.
func (w *world) mutate() (any, bool) {
	var obj any
	var key string
	switch w.rng.IntN(7) {
	case 0, 1:
		ee := w.randomEE(w.rng.IntN(25))
		obj, key = ee, "ee/"+ee.Name
	case 2:
		i := w.rng.IntN(6)
		name := fmt.Sprintf("pod%d", i)
		obj, key = newPod(worldNamespaces[i%len(worldNamespaces)], name, fmt.Sprintf("10.9.0.%d", w.rng.IntN(6)), "app", w.pick(worldApps)), "pod/"+name
	case 3:
		ns := w.randomNamespace(w.pick(worldNamespaces))
		obj, key = ns, "ns/"+ns.Name
	case 4:
		g := w.randomGroup()
		obj, key = g, fmt.Sprintf("group/%T/%s", g, reflect.ValueOf(g).Elem().FieldByName("Name").String())
	case 5:
		obj, key = newTier("custom", int32(10+w.rng.IntN(200))), "tier/custom"
	default:
		i := w.rng.IntN(8)
		obj, key = w.randomPolicy(i), fmt.Sprintf("policy/%d", i)
	}
	if old, ok := w.objects[key]; ok && w.rng.IntN(4) == 0 {
		delete(w.objects, key)
		return old, true
	}
	w.objects[key] = obj
	return obj, false
}

// snapshot renders every endpoint's rules and every policy's status.
func snapshot(t *testing.T, c *Compiler) (map[string]string, []PolicyStatus) {
	t.Helper()
	out := map[string]string{}
	for _, ep := range c.Endpoints() {
		rules, ok := c.Rules(ep)
		if !ok {
			t.Fatalf("Endpoints() lists %s but Rules() does not find it", ep)
		}
		out[ep] = fmt.Sprint(rules.ExternalNode, rules.Hash, renderRules(c, ep))
	}
	return out, c.PolicyStatuses()
}

// TestIncrementalMatchesFullCompile applies random changes one at a time
// and checks, after each batch, that the incremental compiler holds exactly
// what a new compiler computes from the same objects, and that Changed()
// named exactly the endpoints whose rules changed.
func TestIncrementalMatchesFullCompile(t *testing.T) {
	for seed := range uint64(16) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			w := &world{rng: rand.New(rand.NewPCG(seed, 42)), objects: map[string]any{}}
			incremental := New()
			previous := map[string]string{}
			for batch := range 40 {
				for range 1 + w.rng.IntN(4) {
					obj, deleted := w.mutate()
					apply := incremental.Upsert
					if deleted {
						apply = incremental.Delete
					}
					if err := apply(obj); err != nil {
						t.Fatal(err)
					}
				}
				changed := incremental.Changed()
				got, gotStatus := snapshot(t, incremental)
				checkChanged(t, batch, previous, got, changed)
				previous = got

				full := New()
				objs := slices.Sorted(maps.Keys(w.objects))
				for _, key := range objs {
					if err := full.Upsert(w.objects[key]); err != nil {
						t.Fatal(err)
					}
				}
				want, wantStatus := snapshot(t, full)
				if !maps.Equal(got, want) {
					for ep := range want {
						if got[ep] != want[ep] {
							t.Fatalf("batch %d: endpoint %s\nincremental: %s\nfull:        %s", batch, ep, got[ep], want[ep])
						}
					}
					t.Fatalf("batch %d: endpoints differ: %v vs %v", batch, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
				}
				if !reflect.DeepEqual(gotStatus, wantStatus) {
					t.Fatalf("batch %d: statuses differ\nincremental: %v\nfull:        %v", batch, gotStatus, wantStatus)
				}
			}
		})
	}
}

func checkChanged(t *testing.T, batch int, before, after map[string]string, changed []string) {
	t.Helper()
	var want []string
	for ep, rendered := range after {
		if before[ep] != rendered {
			want = append(want, ep)
		}
	}
	for ep := range before {
		if _, ok := after[ep]; !ok {
			want = append(want, ep)
		}
	}
	slices.Sort(want)
	if !slices.Equal(changed, want) {
		t.Fatalf("batch %d: Changed() = %v, want %v", batch, changed, want)
	}
}
