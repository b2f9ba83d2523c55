package source

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/console/view"
)

// The states of a kind are the views' (view.State): Waiting, Synced,
// NotReadable, NotInstalled, Failing.
const (
	Waiting      = view.Waiting
	Synced       = view.Synced
	NotReadable  = view.NotReadable
	NotInstalled = view.NotInstalled
	Failing      = view.Failing
)

// ProbeEvery is how often a member's reachability is probed.
const ProbeEvery = 3 * time.Second

// Member is the live copy of one member.
type Member struct {
	// Context names the member (its kubeconfig context).
	Context string

	cfg      *rest.Config
	kinds    []Kind
	onChange func(kind string)

	mu        sync.Mutex
	informers map[string]toolscache.SharedIndexInformer
	states    map[string]view.KindState
	reachable bool
	probed    bool
	lastErr   string
	since     time.Time
}

// NewMember makes the live copy of the member that cfg reaches; onChange
// is called (from any goroutine) after every change of an object or a
// kind's state (with the kind's name), or of the member's reachability
// (with "").
func NewMember(context string, cfg *rest.Config, kinds []Kind, onChange func(kind string)) *Member {
	m := &Member{Context: context, cfg: cfg, kinds: kinds, onChange: onChange,
		informers: map[string]toolscache.SharedIndexInformer{}, states: map[string]view.KindState{}}
	for _, k := range kinds {
		m.states[k.Name] = view.KindState{State: Waiting}
	}
	return m
}

// Run watches every kind and probes the member until ctx ends.
func (m *Member) Run(ctx context.Context) error {
	if m.cfg == nil {
		m.setReachable(false, "no client configuration for this context")
		<-ctx.Done()
		return nil
	}
	cfg := rest.CopyConfig(m.cfg)
	// One watch per kind, relists after a break: well above client-go's
	// default of 5 requests per second.
	cfg.QPS, cfg.Burst = max(cfg.QPS, 50), max(cfg.Burst, 100)
	sc, err := scheme.New()
	if err != nil {
		return err
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return fmt.Errorf("client of %s: %w", m.Context, err)
	}
	cl, err := client.NewWithWatch(cfg, client.Options{Scheme: sc, HTTPClient: httpClient})
	if err != nil {
		return fmt.Errorf("client of %s: %w", m.Context, err)
	}
	probe, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, httpClient)
	if err != nil {
		return fmt.Errorf("client of %s: %w", m.Context, err)
	}
	var wg sync.WaitGroup
	for _, k := range m.kinds {
		inf := m.informer(cl, k)
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
	wg.Go(func() { m.probeLoop(ctx, probe) })
	wg.Wait()
	return nil
}

// informer is the informer of one kind, whose list errors set the kind's
// state.
func (m *Member) informer(cl client.WithWatch, k Kind) toolscache.SharedIndexInformer {
	opts := func(o metav1.ListOptions) *client.ListOptions {
		lo := &client.ListOptions{Raw: &o, Namespace: k.Namespace}
		if len(k.Labels) > 0 {
			client.MatchingLabels(k.Labels).ApplyToList(lo)
		}
		return lo
	}
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			l := k.newList()
			err := cl.List(ctx, l, opts(o))
			m.listed(k.Name, err)
			return l, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cl.Watch(ctx, k.newList(), opts(o))
		},
	}
	inf := toolscache.NewSharedIndexInformerWithOptions(lw, k.newObj(), toolscache.SharedIndexInformerOptions{})
	// Slim copies: the views never read managed fields.
	_ = inf.SetTransform(func(obj any) (any, error) {
		if o, ok := obj.(metav1.Object); ok {
			o.SetManagedFields(nil)
		}
		return obj, nil
	})
	// List failures are recorded (listed) and shown by the views; the
	// reflector retries with its backoff. Nothing is logged per failure.
	_ = inf.SetWatchErrorHandlerWithContext(func(context.Context, *toolscache.Reflector, error) {})
	changed := func(any) { m.onChange(k.Name) }
	_, _ = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: changed,
		UpdateFunc: func(_, _ any) { m.onChange(k.Name) }, DeleteFunc: changed})
	m.mu.Lock()
	m.informers[k.Name] = inf
	m.mu.Unlock()
	return inf
}

// listed records a kind's list outcome.
func (m *Member) listed(kind string, err error) {
	st := view.KindState{State: Synced}
	switch {
	case err == nil:
	case apierrors.IsForbidden(err):
		st = view.KindState{State: NotReadable, Message: err.Error()}
	case meta.IsNoMatchError(err) || apierrors.IsNotFound(err):
		st = view.KindState{State: NotInstalled, Message: "this member does not serve " + kind}
	default:
		st = view.KindState{State: Failing, Message: err.Error()}
	}
	m.mu.Lock()
	changed := m.states[kind] != st
	m.states[kind] = st
	m.mu.Unlock()
	if changed {
		m.onChange(kind)
	}
}

func (m *Member) probeLoop(ctx context.Context, probe *discovery.DiscoveryClient) {
	for {
		pctx, cancel := context.WithTimeout(ctx, ProbeEvery)
		_, err := probe.RESTClient().Get().AbsPath("/version").Do(pctx).Raw()
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			m.setReachable(false, probeError(err))
		} else {
			m.setReachable(true, "")
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(ProbeEvery):
		}
	}
}

// probeError says why a probe failed, without the request's noise.
func probeError(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "the API server did not answer within " + ProbeEvery.String()
	}
	return err.Error()
}

func (m *Member) setReachable(ok bool, why string) {
	m.mu.Lock()
	changed := !m.probed || m.reachable != ok || m.lastErr != why
	if !m.probed || m.reachable != ok {
		m.since = time.Now()
	}
	m.probed, m.reachable, m.lastErr = true, ok, why
	m.mu.Unlock()
	if changed {
		m.onChange("")
	}
}

// Health is the member's reachability as last probed.
func (m *Member) Health() view.Health {
	m.mu.Lock()
	defer m.mu.Unlock()
	return view.Health{Probed: m.probed, Reachable: m.reachable, Error: m.lastErr, Since: m.since}
}

// State is a kind's state.
func (m *Member) State(kind string) view.KindState {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.states[kind]
}

// States are every kind's state.
func (m *Member) States() map[string]view.KindState {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]view.KindState, len(m.states))
	for k, v := range m.states {
		out[k] = v
	}
	return out
}

// Objects are the member's objects of a kind, sorted by namespace and
// name (what the member held when last read, if it is unreachable now).
// They are the informer's: never modified.
func Objects[T client.Object](m *Member, kind string) []T {
	m.mu.Lock()
	inf := m.informers[kind]
	m.mu.Unlock()
	if inf == nil {
		return nil
	}
	items := inf.GetStore().List()
	out := make([]T, 0, len(items))
	for _, it := range items {
		if o, ok := it.(T); ok {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].GetNamespace() != out[j].GetNamespace() {
			return out[i].GetNamespace() < out[j].GetNamespace()
		}
		return out[i].GetName() < out[j].GetName()
	})
	return out
}
