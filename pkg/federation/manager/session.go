package manager

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/internal/outage"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/cachetrim"
	"antreaplus.io/antreaplus/pkg/federation/election"
)

// session is this manager's connection to one member.
type session struct {
	m         *Manager
	clusterID string
	spec      federationv1alpha1.MemberClusterSpec
	created   time.Time
	key       string
	// setupErr is why the session could not be started (bad Secret, bad config).
	setupErr error

	cancel context.CancelFunc
	done   sync.WaitGroup
	// running counts the session's goroutines by name, for a slow stop.
	runningMu sync.Mutex
	running   map[string]int
	elector   *election.Elector
	// electorDone is closed once the elector has returned (nil until started).
	electorDone chan struct{}
	probe       probe
	peer        peerView

	// member is the member's client and informers; it is replaced when the
	// member comes back from an outage (see runMember).
	cacheMu  sync.Mutex
	watchCfg *rest.Config
	// leaderLease and, on another supervisor's member, peerLease follow the
	// member's leader Lease and the supervisor's manager Lease through
	// watches; read every retry period, they go to the API server only
	// when their watch is not fresh.
	leaderLease, peerLease *watchedLease
	watchCS                kubernetes.Interface
	member                 cluster.Cluster
	memberSwaps            chan struct{}
	// informerFailedAt is when a list or watch of the member's cache last
	// failed (unix nanoseconds; informerFailed).
	informerFailedAt atomic.Int64
}

func newSession(m *Manager, mc *federationv1alpha1.MemberCluster, key string) *session {
	s := &session{m: m, clusterID: mc.Spec.ClusterID, spec: mc.Spec, created: mc.CreationTimestamp.Time, key: key, cancel: func() {}}
	s.probe.flips = &m.probeFlips
	return s
}

// memberConfig is the rest.Config of the member's federation account.
func memberConfig(server string, c credentials, timeout time.Duration) *rest.Config {
	return &rest.Config{
		Host:            server,
		BearerToken:     c.token,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.ca},
		Timeout:         timeout,
		QPS:             50,
		Burst:           100,
		UserAgent:       "antreaplus-federation-manager",
	}
}

// protobuf is cfg asking for and sending Kubernetes protobuf, for the
// clientsets of Leases alone (the elector's and the Lease watches'): at
// idle, a supervisor decodes a Lease event of every member every renewal
// period. (The member's cluster client reads custom resources too, which
// have no protobuf form: it stays on JSON.)
func protobuf(cfg *rest.Config) *rest.Config {
	pb := rest.CopyConfig(cfg)
	pb.ContentType = runtime.ContentTypeProtobuf
	pb.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return pb
}

// start connects to the member and starts the elector, the exports watch
// and, for a supervisor member, the peer loop.
func (s *session) start(c credentials) error {
	// Each round of the elector bounds its own requests
	// (election.RoundTimeout: up to RenewDeadline for a leader renewing
	// late); the client's timeout must not cut them shorter. At 2 retry
	// periods (2 s) it did: at 30 members on a starved machine leaders
	// stepped down with "Client.Timeout exceeded" while their
	// RenewDeadline still had time.
	cfg := memberConfig(s.spec.Server, c, s.m.opts.Election.RenewDeadline)
	s.watchCfg = rest.CopyConfig(cfg)
	s.watchCfg.Timeout = 0
	// The elector has a connection of its own: on the one HTTP/2
	// connection client-go shares between clients of the same server and
	// credentials, a renewal waited behind the watch streams whenever the
	// manager fell behind reading them (the connection's flow-control
	// window is shared by its streams): at 30 members, leaders missed
	// their renew deadline while importing a burst of exports. A dialer of
	// its own gives the elector's client a transport of its own.
	cfg.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	cs, err := kubernetes.NewForConfig(protobuf(cfg))
	if err != nil {
		return fmt.Errorf("client for %s: %w", s.spec.Server, err)
	}
	// The leader's controllers write every import of the federation into the
	// member: a client-side limit of 50/s held a burst of 100 exports (about
	// 5 writes each) for 8 s. The member's API server guards itself (priority
	// and fairness); the elector keeps its own client and limit.
	s.watchCfg.QPS, s.watchCfg.Burst = memberWriteQPS, memberWriteBurst
	member, err := s.newMember()
	if err != nil {
		return err
	}
	if s.watchCS, err = kubernetes.NewForConfig(protobuf(s.watchCfg)); err != nil {
		return fmt.Errorf("client for %s: %w", s.spec.Server, err)
	}
	fresh := s.m.opts.Election.LateAfter()
	s.leaderLease = newWatchedLease(federationv1alpha1.SystemNamespace, federationv1alpha1.LeaderLease, fresh)
	if s.spec.Supervisor && s.clusterID != s.m.me {
		s.peerLease = newWatchedLease(federationv1alpha1.SystemNamespace, federationv1alpha1.ManagerLease, fresh)
	}
	leases := &probingLeases{c: cs.CoordinationV1().Leases(federationv1alpha1.SystemNamespace), name: federationv1alpha1.LeaderLease,
		probe: &s.probe, watched: s.leaderLease, member: s.clusterID}
	s.elector = election.New(s.m.opts.Election, s.m.me, s.clusterID, leases, s.m, s.lead).WithRenewals(s.m.budget)
	// A Lease released, or gone to another holder, or a hand-over asked:
	// a round now, not at the next retry period. (A renewal changes
	// nothing a round decides from.) A supervisor whose manager released
	// its heartbeat left: every elector's ranks change.
	s.leaderLease.onChange = func(old, l *coordinationv1.Lease) {
		if decidesAgain(old, l) {
			s.elector.Poke()
		}
	}
	if s.peerLease != nil {
		s.peerLease.onChange = func(_, l *coordinationv1.Lease) {
			if l != nil && s.notePeer(l, time.Now()) {
				s.m.pokeAll()
			}
		}
	}

	// The session outlives the reconcile that starts it: it gets its own logger and context.
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), ctrl.Log.WithName("member").WithValues("member", s.clusterID)))
	s.cancel = cancel
	s.useMember(member)
	s.goRun("member cache", func() { s.runMember(ctx) })
	s.electorDone = make(chan struct{})
	s.goRun("elector", func() {
		defer close(s.electorDone)
		s.elector.Run(ctx)
	})
	s.goRun("exports watch", func() { s.watchExports(ctx) })
	if s.spec.Supervisor && s.clusterID != s.m.me {
		s.goRun("peer loop", func() { s.peerLoop(ctx, cs) })
	}
	return nil
}

// goRun runs f for the session; stop waits for it, and names it while it
// keeps stop waiting. Its goroutines, and those they start, carry the
// profiler labels member and part, by which a slow stop finds their stacks.
func (s *session) goRun(name string, f func()) {
	s.done.Add(1)
	s.runningMu.Lock()
	if s.running == nil {
		s.running = map[string]int{}
	}
	s.running[name]++
	s.runningMu.Unlock()
	go func() {
		defer s.done.Done()
		defer func() {
			s.runningMu.Lock()
			s.running[name]--
			s.runningMu.Unlock()
		}()
		pprof.Do(context.Background(), pprof.Labels("member", s.clusterID, "part", name), func(context.Context) { f() })
	}()
}

// stopWarnAfter is how long a session's stop may take before it logs
// what it still waits for.
const stopWarnAfter = 15 * time.Second

// stopRestFor is how long stop waits, once the elector has returned, for
// the session's other goroutines (the member's cache, the watches) before
// it leaves them to end in the background. A variable for the tests.
var stopRestFor = 10 * time.Second

// stop ends the session. It waits for the elector, which stops the
// member's controllers and releases the Lease first: after stop, nothing
// of this session writes into the member. The rest (informers, watches)
// only read; stop waits for them stopRestFor, then returns and lets them
// end in the background, saying so with their stacks. A cache that did not
// stop (seen under load after a member's address changed) held the
// registry's one worker: no other member's status was written meanwhile.
func (s *session) stop() {
	s.cancel()
	start := time.Now()
	log := klog.Background().WithValues("member", s.clusterID)
	if s.electorDone != nil {
		for waited := false; !waited; {
			select {
			case <-s.electorDone:
				waited = true
			case <-time.After(stopWarnAfter):
				log.Info("A member's session is slow to stop", "for", time.Since(start).Round(time.Second),
					"waitingFor", s.waitingFor(), "leaderStatus", fmt.Sprintf("%+v", s.elector.Status()))
			}
		}
	}
	stopped := make(chan struct{})
	go func() {
		s.done.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(stopRestFor):
		sessionsStoppingInBackground.Inc()
		go func() {
			<-stopped
			sessionsStoppingInBackground.Dec()
		}()
		log.Info("A member's session goes on stopping in the background: what it leaves running only reads",
			"for", time.Since(start).Round(time.Second), "waitingFor", s.waitingFor(), "stacks", sessionStacks(s.clusterID, maxStacks))
	}
}

// waitingFor names the session's goroutines still running.
func (s *session) waitingFor() []string {
	s.runningMu.Lock()
	defer s.runningMu.Unlock()
	var waiting []string
	for name, n := range s.running {
		if n > 0 {
			waiting = append(waiting, name)
		}
	}
	sort.Strings(waiting)
	return waiting
}

// maxStacks bounds the stacks a slow stop logs.
const maxStacks = 16 << 10

// sessionStacks is the goroutine profile's groups labelled with member,
// at most limit bytes.
func sessionStacks(member string, limit int) string {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return err.Error()
	}
	label := fmt.Sprintf("%q:%q", "member", member)
	var out strings.Builder
	for group := range strings.SplitSeq(b.String(), "\n\n") {
		if !strings.Contains(group, label) {
			continue
		}
		if out.Len()+len(group) > limit {
			out.WriteString("...")
			break
		}
		out.WriteString(group)
		out.WriteString("\n\n")
	}
	return out.String()
}

// newMember connects a client and a cache (not started) to the member.
func (s *session) newMember() (cluster.Cluster, error) {
	sch, err := memberScheme()
	if err != nil {
		return nil, err
	}
	member, err := cluster.New(s.watchCfg, func(o *cluster.Options) {
		memberClusterOptions(o, sch)
		o.Cache.DefaultWatchErrorHandler = s.informerFailed
	})
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", s.spec.Server, err)
	}
	return member, nil
}

// MemberClusterOptions are the options of a member's client and cache as a
// session connects them (tests connect theirs the same way).
func MemberClusterOptions(o *cluster.Options) {
	sch, err := memberScheme()
	if err != nil {
		panic(fmt.Sprintf("the members' scheme: %v", err)) // built from the project's own types
	}
	memberClusterOptions(o, sch)
}

func memberClusterOptions(o *cluster.Options, sch *runtime.Scheme) {
	o.Scheme = sch
	o.MapperProvider = memberMapper
	o.Cache.ByObject = memberCacheByObject()
	// Nothing the leader controllers read needs managedFields (their
	// updates leave them to the API server), and they are a good part
	// of every object every supervisor holds of every member.
	o.Cache.DefaultTransform = cache.TransformStripManagedFields()
}

// informerFailed records a failed list or watch of the member's cache (the
// reflectors then back off), then logs it as client-go does. An expired
// resourceVersion or a stream that ended is routine: the reflector lists
// again at once.
func (s *session) informerFailed(ctx context.Context, r *toolscache.Reflector, err error) {
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		s.informerFailedAt.Store(time.Now().UnixNano())
	}
	toolscache.DefaultWatchErrorHandler(ctx, r, err)
}

// informersFailedSince tells whether, at or after t, the member could not
// be reached (a Lease request refused, reset, no connection: the informers'
// reflectors then back off by themselves, without a word) or a list or
// watch of its cache failed. An outage renews the cache only then: the
// probes, the election's Lease requests, also time out when the member is
// only slow, and its watches held.
func (s *session) informersFailedSince(t time.Time) bool {
	return s.probe.unreachableSince(t) || s.informerFailedAt.Load() >= t.UnixNano()
}

// memberScheme is the scheme of every member's client and cache, built
// once: it is only read, and one per session was 7 MB of a supervisor's
// heap at 30 members.
var memberScheme = sync.OnceValues(scheme.New)

// memberCacheByObject narrows what a member's cache holds to what the
// federation account may list and the leader controllers read: Leases
// only in federationv1alpha1.SystemNamespace, and only the tenants' claims
// (package tenantoverlaps). The election's Leases are followed by their own
// watches (watchedLease): in the cache, the leader's renewal, once a
// second, reached every supervisor from every member (30 events a second
// each at 30 members) for no reader.
func memberCacheByObject() map[client.Object]cache.ByObject {
	claims := labels.SelectorFromSet(labels.Set{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseClaim})
	byObject := map[client.Object]cache.ByObject{
		&coordinationv1.Lease{}: {Namespaces: map[string]cache.Config{federationv1alpha1.SystemNamespace: {LabelSelector: claims}}},
		// Nodes are kept trimmed to what is read of them (package
		// cachetrim): whole, they were the largest objects of a member's
		// cache. (A transform of its own replaces DefaultTransform; the
		// trimmed node has no managedFields either.)
		&corev1.Node{}: {Transform: cachetrim.Node},
	}
	// Services and EndpointSlices but the federation's own (owncache.go).
	notOwnByObject(byObject)
	return byObject
}

// useMember makes member the session's client and cache of the member and
// tells the users of the one it replaces.
func (s *session) useMember(member cluster.Cluster) {
	s.cacheMu.Lock()
	oldSwaps := s.memberSwaps
	s.member, s.memberSwaps = member, make(chan struct{})
	s.cacheMu.Unlock()
	if oldSwaps != nil {
		close(oldSwaps)
	}
}

// currentMember is the member's client and cache now, and a channel closed
// when they are replaced.
func (s *session) currentMember() (cluster.Cluster, <-chan struct{}) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	return s.member, s.memberSwaps
}

// runMember runs the member's cache until ctx ends, and replaces it with a
// fresh one each time the member answers again after an outage (package
// outage): client-go's reflectors back off exponentially (up to a minute
// with jitter) while an API server is down, so after a restart the old
// informers may stay blind for a minute or more; fresh ones list at once.
// The elector's Lease reads are the probes.
func (s *session) runMember(ctx context.Context) {
	r := outage.Renewer{Component: "federation-manager/" + s.clusterID, Probe: s.probe.result,
		Period: s.m.opts.Election.RetryPeriod, Log: klog.FromContext(ctx), Broken: s.informersFailedSince}
	if err := r.Run(ctx, s.memberGeneration); err != nil {
		klog.FromContext(ctx).Error(err, "The member's cache stopped")
	}
}

// memberGeneration runs one generation of the member's cache: the one start
// connected first, then a fresh one after each outage.
func (s *session) memberGeneration(ctx context.Context, g outage.Generation) error {
	member, _ := s.currentMember()
	if g.N > 0 {
		var err error
		if member, err = s.newMember(); err != nil {
			return err
		}
		s.useMember(member)
	}
	// The Lease watches are renewed with the cache, for the same reason;
	// they end with ctx, and nothing waits for them (a read never relies on
	// a watch that stopped delivering).
	for _, w := range []*watchedLease{s.leaderLease, s.peerLease} {
		if w != nil {
			go w.run(ctx, s.watchCS)
		}
	}
	return member.Start(ctx)
}

const (
	memberWriteQPS   = 500
	memberWriteBurst = 1000
)

// watchExports keeps an informer on the member's ServiceExports, so that
// any supervisor can take the member over with its exports already known.
func (s *session) watchExports(ctx context.Context) {
	t := time.NewTicker(s.m.opts.StatusPeriod)
	defer t.Stop()
	for {
		member, _ := s.currentMember()
		inf, err := member.GetCache().GetInformer(ctx, &mcsv1beta1.ServiceExport{}, cache.BlockUntilSynced(false))
		if err == nil && inf.HasSynced() {
			list := &mcsv1beta1.ServiceExportList{}
			if err := member.GetCache().List(ctx, list); err == nil {
				exportsObserved.WithLabelValues(s.clusterID).Set(float64(len(list.Items)))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
