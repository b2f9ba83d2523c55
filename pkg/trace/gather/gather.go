// Package gather reads what a trace needs from the members' API servers
// (the workloads, the policies and what they select, the remote entities,
// the networks, the federated Services) and turns a source and a
// destination given on the command line into the workloads and enforcement
// points of trace.Compute, compiling each member's policies with
// policycompiler, as its policy controller does.
package gather

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/trace"
)

// Member is what was read of one member.
type Member struct {
	Context   string
	ClusterID string
	// Err is why the member could not be read at all.
	Err error
	// Partial lists what could not be read (kinds whose CRDs are missing
	// are not errors: they hold nothing).
	Partial []string
	// Connected is how long making its client and reading its identity
	// took; Listed how long the member's lists took; Compiled how long
	// compiling its policies took (Compile).
	Connected, Listed, Compiled time.Duration

	// cl reads the member (and watches: the command follows its Traces
	// through it); nil when it could not be made.
	cl client.WithWatch
	// timeout bounds each of the member's reads.
	timeout time.Duration
	// mu guards Partial while reads run side by side.
	mu sync.Mutex
	// complete: everything was read (Read, Complete), not only what the
	// flow's ends need (ReadFor).
	complete bool

	entities []antreav1alpha2.ExternalEntity
	// policies are the compiler's other inputs: policies, groups, tiers
	// and Namespaces (compiled by Compile for the trace's workloads).
	policies []any
	// cloudNames are the cloud names of the CloudNativeServices by
	// "namespace/name".
	cloudNames map[string]string
	pods       []corev1.Pod
	remote     []federationv1alpha1.RemoteEntity
	networks   []federationv1alpha1.Network
	imports    []mcsv1beta1.ServiceImport
	slices     []discoveryv1.EndpointSlice
	federated  map[policyrules.PolicyRef]string
	// unrealized are the policies whose status is not Realized, and why.
	unrealized map[policyrules.PolicyRef]string
}

// World is every member read.
type World struct{ Members []*Member }

// Read reads every cluster whole, each within timeout, concurrently.
func Read(ctx context.Context, clusters []membership.Cluster, timeout time.Duration) *World {
	w := connect(ctx, clusters, timeout)
	w.each(func(m *Member) { m.read(ctx) })
	return w
}

// connect makes a client of every cluster and reads its ClusterID.
func connect(ctx context.Context, clusters []membership.Cluster, timeout time.Duration) *World {
	w := &World{Members: make([]*Member, len(clusters))}
	for i, c := range clusters {
		w.Members[i] = &Member{Context: c.Name, ClusterID: c.Name, timeout: timeout}
	}
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Go(func() { w.Members[i].connect(ctx, c.Config) })
	}
	wg.Wait()
	return w
}

// each runs f for every member that could be reached, concurrently.
func (w *World) each(f func(*Member)) {
	var wg sync.WaitGroup
	for _, m := range w.Members {
		if m.Err == nil {
			wg.Go(func() { f(m) })
		}
	}
	wg.Wait()
}

func (m *Member) connect(ctx context.Context, cfg *rest.Config) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	started := time.Now()
	defer func() { m.Connected = time.Since(started) }()
	if cfg == nil {
		m.Err = fmt.Errorf("%s has no client configuration", m.Context)
		return
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 || cfg.Timeout > m.timeout {
		cfg.Timeout = m.timeout
	}
	// A dozen lists at once: client-go's default of 5 per second would
	// spend the timeout waiting on itself.
	cfg.QPS, cfg.Burst = max(cfg.QPS, 50), max(cfg.Burst, 100)
	sc, err := scheme.New()
	if err != nil {
		m.Err = err
		return
	}
	if m.cl, err = client.NewWithWatch(cfg, client.Options{Scheme: sc}); err != nil {
		m.Err = fmt.Errorf("client of %s: %w", m.Context, err)
		return
	}
	var mem federationv1alpha1.ClusterMembership
	err = m.cl.Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, &mem)
	switch {
	case err == nil && mem.Spec.ClusterID != "":
		m.ClusterID = mem.Spec.ClusterID
	case err != nil && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) && !apierrors.IsForbidden(err):
		// Unreachable, most likely: the lists would wait for it too.
		m.Err = fmt.Errorf("reading %s: %w", m.Context, err)
	}
}

// read reads everything of the member a trace may need.
func (m *Member) read(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	cl := m.cl
	var (
		ees    antreav1alpha2.ExternalEntityList
		nps    antreav1beta1.NetworkPolicyList
		acnps  antreav1beta1.ClusterNetworkPolicyList
		groups antreav1beta1.GroupList
		cgs    antreav1beta1.ClusterGroupList
		tiers  antreav1beta1.TierList
		nss    corev1.NamespaceList
		pods   corev1.PodList
		res    federationv1alpha1.RemoteEntityList
		nets   federationv1alpha1.NetworkList
		sis    mcsv1beta1.ServiceImportList
		eps    discoveryv1.EndpointSliceList
		svcs   cloudv1alpha1.CloudNativeServiceList
	)
	lists := []struct {
		what string
		l    client.ObjectList
		opts []client.ListOption
	}{
		{"ExternalEntities", &ees, nil}, {"NetworkPolicies", &nps, nil}, {"ClusterNetworkPolicies", &acnps, nil},
		{"Groups", &groups, nil}, {"ClusterGroups", &cgs, nil}, {"Tiers", &tiers, nil}, {"Namespaces", &nss, nil},
		{"Pods", &pods, nil}, {"RemoteEntities", &res, nil}, {"Networks", &nets, nil}, {"ServiceImports", &sis, nil},
		{"EndpointSlices", &eps, []client.ListOption{client.HasLabels{mcsv1beta1.LabelServiceName}}},
		{"CloudNativeServices", &svcs, nil},
	}
	errs := make([]error, len(lists))
	started := time.Now()
	var wg sync.WaitGroup
	for i, l := range lists {
		wg.Go(func() {
			if err := cl.List(ctx, l.l, l.opts...); err != nil && !meta.IsNoMatchError(err) {
				errs[i] = fmt.Errorf("listing %s: %w", l.what, err)
			}
		})
	}
	wg.Wait()
	m.Listed = time.Since(started)
	var first error
	for i, err := range errs {
		if err != nil {
			first = cmp.Or(first, err)
			m.Partial = append(m.Partial, lists[i].what)
		}
	}
	if len(m.Partial) == len(lists) || ctx.Err() != nil {
		// Every list failed, likely for one cause: the first says it.
		m.Err, m.Partial = first, nil
		return
	}
	m.complete = true
	m.policies = slices.Concat(pointers(nps.Items), pointers(acnps.Items), pointers(groups.Items), pointers(cgs.Items), pointers(tiers.Items))
	for i := range nss.Items {
		m.policies = append(m.policies, policycompiler.Convert(&nss.Items[i]))
	}
	m.entities, m.pods, m.remote, m.networks, m.imports, m.slices = ees.Items, pods.Items, res.Items, nets.Items, sis.Items, eps.Items
	m.federated, m.unrealized = map[policyrules.PolicyRef]string{}, map[policyrules.PolicyRef]string{}
	m.cloudNames = map[string]string{}
	for _, svc := range svcs.Items {
		m.cloudNames[svc.Namespace+"/"+svc.Name] = svc.Spec.CloudName
	}
	for _, p := range nps.Items {
		ref := policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: p.Namespace, Name: p.Name}
		if from := p.Labels[policyv1alpha1.LabelFederatedPolicy]; from != "" {
			m.federated[ref] = p.Namespace + "/" + from
		}
		if why := trace.Unrealized(p.Generation, p.Status); why != "" {
			m.unrealized[ref] = why
		}
	}
	for _, p := range acnps.Items {
		if why := trace.Unrealized(p.Generation, p.Status); why != "" {
			m.unrealized[policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: p.Name}] = why
		}
	}
}

// Compile fills the rules of the workloads' enforcement points: each
// member's policies compiled as its policy controller compiles them, over
// the workloads' entities and every entity or Pod of the member that
// carries one of the workloads' addresses (those are all a rule's peers
// can hold of the flow: a peer set is decided by the addresses in it).
// The other entities select nothing the flow is made of, so compiling
// them, the most of a large member, would change no verdict.
func (w *World) Compile(workloads ...*trace.Workload) error {
	addrs := map[string]bool{}
	for _, wl := range workloads {
		for _, a := range wl.Addresses {
			addrs[a.IP.String()] = true
		}
	}
	for _, m := range w.Members {
		var points []*trace.Point
		for _, wl := range workloads {
			if wl.Point != nil && wl.Point.Member == m.Context {
				points = append(points, wl.Point)
			}
		}
		if len(points) == 0 {
			continue
		}
		if err := m.compile(addrs, points); err != nil {
			return fmt.Errorf("compiling the policies of %s: %w", m.Context, err)
		}
	}
	return nil
}

// compile compiles m's policies over the entities and Pods named by
// points or carrying one of addrs, and fills the points' rules.
func (m *Member) compile(addrs map[string]bool, points []*trace.Point) error {
	started := time.Now()
	defer func() { m.Compiled += time.Since(started) }()
	objs := slices.Clone(m.policies)
	named := map[string]bool{}
	for _, p := range points {
		named[p.Endpoint] = true
	}
	for i := range m.entities {
		e := &m.entities[i]
		if named[e.Namespace+"/"+e.Name] || slices.ContainsFunc(e.Spec.Endpoints, func(ep antreav1alpha2.Endpoint) bool { return addrs[ep.IP] }) {
			objs = append(objs, e)
		}
	}
	for i := range m.pods {
		p := &m.pods[i]
		if slices.ContainsFunc(p.Status.PodIPs, func(ip corev1.PodIP) bool { return addrs[ip.IP] }) {
			objs = append(objs, policycompiler.Convert(p))
		}
	}
	c := policycompiler.New()
	if err := c.Upsert(objs...); err != nil {
		return err
	}
	for _, p := range points {
		p.Rules = nil
		if rules, ok := c.Rules(p.Endpoint); ok {
			p.Rules = rules.Rules
		}
		p.Pending = trace.Pending(p.Rules, func(ref policyrules.PolicyRef) string { return m.unrealized[ref] })
	}
	return nil
}

// pointers are the addresses of a list's items, as the compiler takes
// them.
func pointers[T any](items []T) []any {
	out := make([]any, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// Federated is every member's map of derived policies, for trace.Query.
func (w *World) Federated() map[policyrules.PolicyRef]string {
	out := map[policyrules.PolicyRef]string{}
	for _, m := range w.Members {
		for k, v := range m.federated {
			out[k] = v
		}
	}
	return out
}

// Flat reports whether a's private addresses reach b in some member's
// view: the same network, or a flat connection declared or discovered in
// either direction.
func (w *World) Flat(a, b string) bool {
	for _, m := range w.Members {
		for _, n := range m.networks {
			if n.Name != a && n.Name != b {
				continue
			}
			other := b
			if n.Name == b {
				other = a
			}
			if slices.ContainsFunc(n.Spec.Flat, func(f federationv1alpha1.FlatConnection) bool { return f.Network == other }) {
				return true
			}
		}
	}
	return false
}

// member returns the member of a context or cluster ID.
func (w *World) member(name string) (*Member, error) {
	for _, m := range w.Members {
		if m.Context == name || m.ClusterID == name {
			if m.Err != nil {
				return nil, fmt.Errorf("member %s could not be read: %w", name, m.Err)
			}
			return m, nil
		}
	}
	return nil, fmt.Errorf("no member %q among the contexts read (%s)", name, w.names())
}

// Connected is the longest any member took to connect.
func (w *World) Connected() time.Duration {
	var d time.Duration
	for _, m := range w.Members {
		d = max(d, m.Connected)
	}
	return d
}

// Client is the client a member was read with, for the objects a command
// creates there (its Traces); an error says why the member has none.
func (w *World) Client(member string) (client.WithWatch, error) {
	m, err := w.member(member)
	if err != nil {
		return nil, err
	}
	return m.cl, nil
}

func (w *World) names() string {
	var out []string
	for _, m := range w.Members {
		out = append(out, m.Context)
	}
	return strings.Join(out, ", ")
}
