package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
)

// Kinds of change measured.
const (
	kindRemoteIP  = "remote IP"
	kindLocalIP   = "local IP"
	kindRemoteNew = "remote new"
	kindLocalNew  = "local new"
	kindService   = "service endpoint"
	kindRemoteNAT = "remote NAT address"
	// kindLocalIPNAT are local IP changes interleaved with the NAT address
	// changes: their baseline, measured alongside.
	kindLocalIPNAT = "local IP, with NAT"
	// kindLocalIPService are local IP changes interleaved with the Service
	// endpoint changes: their baseline, measured alongside.
	kindLocalIPService = "local IP, with service"
	// Remote changes made alone, to count their writes.
	kindRemoteIPAlone = "remote IP, alone"
	kindServiceAlone  = "service endpoint, alone"
)

// sample is one change: when it was made, its new address, and when the
// agent had applied it (with the generation it applied).
type sample struct {
	kind       string
	addr       netip.Addr
	start      time.Time
	applied    time.Time
	generation uint64
}

func (s sample) ms() float64 { return float64(s.applied.Sub(s.start).Microseconds()) / 1000 }

// bench makes the changes and times them.
type bench struct {
	s       settings
	e       *env
	lab     *vmLab
	state   *stateFile
	seen    *sightings
	pools   map[string]*pool
	created map[string]int // entities created so far, by role
	samples []sample
}

// peersPerRole is how many entities each IP-change rule selects.
const peersPerRole = 10

func newBench(s settings, e *env, lab *vmLab) *bench {
	return &bench{s: s, e: e, lab: lab, state: &stateFile{path: lab.stateFile()},
		seen: &sightings{seen: map[string]map[netip.Addr]time.Time{}},
		pools: map[string]*pool{roleRemoteIP: newPool("172.21.0.1"), roleLocalIP: newPool("172.22.0.1"),
			roleRemoteNew: newPool("172.23.0.1"), roleLocalNew: newPool("172.24.0.1"), kindService: newPool("172.25.0.1"),
			roleRemoteNAT: newPool("198.18.0.1"), natNetwork: newPool("10.250.0.1")},
		created: map[string]int{}}
}

// setup writes the exports in member-1 and the policies and local peers in
// member-2, and waits until the agent enforces every initial address.
func (b *bench) setup(ctx context.Context) error {
	c1, c2 := b.e.members[exporter].c, b.e.members[enforcer].c
	var want []netip.Addr
	var objs1, objs2 []client.Object
	for i := range peersPerRole {
		r, l := b.pools[roleRemoteIP].take(), b.pools[roleLocalIP].take()
		objs1 = append(objs1, peerEntity(roleRemoteIP, i, r, true))
		objs2 = append(objs2, peerEntity(roleLocalIP, i, l, false))
		want = append(want, r, l)
	}
	// The NAT role: private addresses of natNetwork (never in the agent's
	// rules), each behind a NAT gateway address of its own.
	for i := range peersPerRole {
		private, egress := b.pools[natNetwork].take(), b.pools[roleRemoteNAT].take()
		objs1 = append(objs1, natEntity(i, private, egress))
		want = append(want, egress)
	}
	svcAddr := b.pools[kindService].take()
	want = append(want, svcAddr)
	objs1 = append(objs1, entityExport(), service(), endpointSlice(svcAddr), serviceExport())
	objs2 = append(objs2, localPolicy(), federatedPolicy())
	start := time.Now()
	for _, o := range objs1 {
		if err := c1.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %T %s in %s: %w", o, o.GetName(), exporter, err)
		}
	}
	for _, o := range objs2 {
		if err := c2.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %T %s in %s: %w", o, o.GetName(), enforcer, err)
		}
	}
	if _, _, err := b.state.waitFor(ctx, 3*time.Minute, allowsAll(want...)); err != nil {
		return fmt.Errorf("the agent does not enforce the initial peers: %w\n%s", err, b.diagnose(svcAddr, start))
	}
	logf("the agent enforces the %d initial peers after %s", len(want), time.Since(start).Round(100*time.Millisecond))
	b.logPolicyStatus(ctx)
	return nil
}

// logPolicyStatus says what the federated policy's status says, once its
// enforcement point is listed (10 s at most).
func (b *bench) logPolicyStatus(ctx context.Context) {
	p := federatedPolicy()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if err := b.e.members[enforcer].c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil || len(p.Status.EnforcementPoints) > 0 {
			break
		}
		if sleep(ctx, 200*time.Millisecond) != nil {
			return
		}
	}
	var sources []string
	for _, s := range p.Status.RemoteSources {
		sources = append(sources, fmt.Sprintf("%s %s resolved=%v addresses=%d", s.Kind, s.Name, s.Resolved, s.Addresses))
	}
	logf("federated policy %s/%s: phase %q, derived %q, enforcement points %+v, remote sources [%s]", p.Namespace, p.Name,
		p.Status.Phase, p.Status.DerivedPolicy, p.Status.EnforcementPoints, strings.Join(sources, "; "))
}

// measure makes one change and waits until the agent applied its address.
func (b *bench) measure(ctx context.Context, kind string, change func() (netip.Addr, error)) (sample, error) {
	s := sample{kind: kind, start: time.Now()}
	var err error
	if s.addr, err = change(); err != nil {
		return s, fmt.Errorf("%s change: %w", kind, err)
	}
	at, view, err := b.state.waitFor(ctx, b.s.timeout, allowsAll(s.addr))
	if err != nil {
		return s, fmt.Errorf("%s change to %s: %w\n%s", kind, s.addr, err, b.diagnose(s.addr, s.start))
	}
	s.applied, s.generation = at, view.Generation
	b.samples = append(b.samples, s)
	if d := at.Sub(s.start); d > 2*time.Second {
		logf("%s change to %s took %s: %s", kind, s.addr, d.Round(time.Millisecond), b.seen.describe(s.addr, s.start))
	}
	return s, sleep(ctx, b.s.settle)
}

// diagnose says how far a change went, and what died.
func (b *bench) diagnose(a netip.Addr, start time.Time) string {
	return fmt.Sprintf("stages in %s: %s\n%s\n--- policy controller:\n%s\n--- agent:\n%s",
		enforcer, b.seen.describe(a, start), b.e.procs.dead(), b.lab.controller.tail(10), b.lab.agent.tail(10))
}

// moveEntity gives entity i of a role, in cluster, a new address.
func (b *bench) moveEntity(ctx context.Context, cluster, role string, i int) func() (netip.Addr, error) {
	return func() (netip.Addr, error) {
		a := b.pools[role].take()
		change := map[string]any{"spec": map[string]any{"endpoints": []antreav1alpha2.Endpoint{{IP: a.String(), Name: "eth0"}}}}
		if cluster == exporter { // its classified address too, as the cloud controller writes both
			change["metadata"] = map[string]any{"annotations": peerEntity(role, i, a, true).Annotations}
		}
		patch, _ := json.Marshal(change)
		ee := &antreav1alpha2.ExternalEntity{}
		ee.Namespace, ee.Name = namespace, fmt.Sprintf("%s-%d", role, i)
		return a, b.e.members[cluster].c.Patch(ctx, ee, client.RawPatch(types.MergePatchType, patch))
	}
}

// newEntity creates an entity of a role in cluster (exported in member-1).
func (b *bench) newEntity(ctx context.Context, cluster, role string) func() (netip.Addr, error) {
	return func() (netip.Addr, error) {
		a := b.pools[role].take()
		i := b.created[role]
		b.created[role]++
		return a, b.e.members[cluster].c.Create(ctx, peerEntity(role, i, a, cluster == exporter))
	}
}

// moveNAT gives the NAT gateway of entity i of the NAT role a new address,
// as the cloud controller writes it after a poll.
func (b *bench) moveNAT(ctx context.Context, i int) func() (netip.Addr, error) {
	return func() (netip.Addr, error) {
		a := b.pools[roleRemoteNAT].take()
		ee := &antreav1alpha2.ExternalEntity{}
		ee.Namespace, ee.Name = namespace, fmt.Sprintf("%s-%d", roleRemoteNAT, i)
		if err := b.e.members[exporter].c.Get(ctx, client.ObjectKeyFromObject(ee), ee); err != nil {
			return a, err
		}
		private := netip.MustParseAddr(ee.Spec.Endpoints[0].IP)
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": natAddresses(private, a)}})
		return a, b.e.members[exporter].c.Patch(ctx, ee, client.RawPatch(types.MergePatchType, patch))
	}
}

// moveEndpoint gives the exported Service's endpoint a new address.
func (b *bench) moveEndpoint(ctx context.Context) func() (netip.Addr, error) {
	return func() (netip.Addr, error) {
		a := b.pools[kindService].take()
		patch, _ := json.Marshal(map[string]any{"endpoints": endpointSlice(a).Endpoints})
		es := &discoveryv1.EndpointSlice{}
		es.Namespace, es.Name = namespace, sliceName
		return a, b.e.members[exporter].c.Patch(ctx, es, client.RawPatch(types.MergePatchType, patch))
	}
}

// pair is a remote change and its local counterpart.
type pair struct {
	remoteKind, localKind string
	remote, local         func(i int) func() (netip.Addr, error)
}

// interleave measures runs of a pair, remote and local in turn, the
// first of each run alternating.
func (b *bench) interleave(ctx context.Context, p pair, runs int) error {
	for i := range runs {
		order := []bool{true, false}
		if i%2 == 1 {
			order = []bool{false, true}
		}
		for _, remote := range order {
			kind, change := p.localKind, p.local(i)
			if remote {
				kind, change = p.remoteKind, p.remote(i)
			}
			if _, err := b.measure(ctx, kind, change); err != nil {
				return err
			}
		}
	}
	logf("%s / %s: %d runs each done", p.remoteKind, p.localKind, runs)
	return nil
}

// ipChanges and newEntities are the two pairs.
func (b *bench) ipChanges(ctx context.Context) pair {
	return pair{remoteKind: kindRemoteIP, localKind: kindLocalIP,
		remote: func(i int) func() (netip.Addr, error) {
			return b.moveEntity(ctx, exporter, roleRemoteIP, i%peersPerRole)
		},
		local: func(i int) func() (netip.Addr, error) {
			return b.moveEntity(ctx, enforcer, roleLocalIP, i%peersPerRole)
		}}
}

func (b *bench) newEntities(ctx context.Context) pair {
	return pair{remoteKind: kindRemoteNew, localKind: kindLocalNew,
		remote: func(int) func() (netip.Addr, error) { return b.newEntity(ctx, exporter, roleRemoteNew) },
		local:  func(int) func() (netip.Addr, error) { return b.newEntity(ctx, enforcer, roleLocalNew) }}
}

// natChanges pairs NAT gateway address changes with local IP changes.
func (b *bench) natChanges(ctx context.Context) pair {
	return pair{remoteKind: kindRemoteNAT, localKind: kindLocalIPNAT,
		remote: func(i int) func() (netip.Addr, error) { return b.moveNAT(ctx, i%peersPerRole) },
		local: func(i int) func() (netip.Addr, error) {
			return b.moveEntity(ctx, enforcer, roleLocalIP, i%peersPerRole)
		}}
}

// serviceChanges pairs the federated Service's endpoint changes with local
// IP changes.
func (b *bench) serviceChanges(ctx context.Context) pair {
	return pair{remoteKind: kindService, localKind: kindLocalIPService,
		remote: func(int) func() (netip.Addr, error) { return b.moveEndpoint(ctx) },
		local: func(i int) func() (netip.Addr, error) {
			return b.moveEntity(ctx, enforcer, roleLocalIP, i%peersPerRole)
		}}
}

// of returns the samples of a kind.
func (b *bench) of(kind string) []sample {
	var out []sample
	for _, s := range b.samples {
		if s.kind == kind {
			out = append(out, s)
		}
	}
	return out
}
