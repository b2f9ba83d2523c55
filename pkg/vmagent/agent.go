package vmagent

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// Options configure an Agent.
type Options struct {
	// Client talks to the policy distribution server. Required.
	Client *consumer.Client
	// Firewall enforces the rules (default: NFTables in the agent's own
	// network namespace).
	Firewall Firewall
	// StatePath is the state file: the last rules enforced. Required.
	StatePath string
	// Version is the agent's version, as reported.
	Version string
	// Interfaces lists the VM's network interfaces (default: every
	// interface but loopback).
	Interfaces func() []string
	// ReportInterval is how often the agent reports even when nothing
	// changed (default 1 min); RetryInterval how soon it retries a failed
	// apply or report (default 5 s).
	ReportInterval, RetryInterval time.Duration
	// DNS, when set, runs a DNS forwarder for the federation zones while
	// the policy distribution server offers the member's DNS server, and
	// points the VM's resolver at it. Nil turns DNS off (a resolver file
	// the agent pointed at its forwarder before is put back).
	DNS *DNSOptions
	// Dial opens the connections of live probes (default: a net.Dialer in
	// the agent's network namespace).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	Log  logr.Logger
}

// Agent is the VM agent: it enforces the last good rules from its state
// file at once, then follows its VM's rules from the server, applying
// each new View atomically and saving it, and reports what it enforces.
// While the server is unreachable it keeps enforcing what it has.
type Agent struct {
	opts Options

	// latest is the newest View received; applyCh signals it.
	mu      sync.Mutex
	latest  *wire.View
	applyCh chan struct{}
	// Written by the apply loop only, read by Status and reports.
	applied   *wire.View
	rules     int
	applyErr  error
	connected bool
	vm        string

	reportCh chan struct{}
	// fwMu orders applies and counter reads, so that a report never sums
	// a replaced table's counts twice (once in counted, once read live).
	fwMu sync.Mutex
	// counted is what the tables the agent replaced counted (under mu).
	counted RuleCounts
	// saveMu orders writes of the state file.
	saveMu sync.Mutex
	// loaded is the View of the state file at start, kept in it until
	// another is applied.
	loaded *wire.View
	// dns manages the VM's DNS.
	dns *dnsManager
}

// New returns an agent.
func New(opts Options) (*Agent, error) {
	if opts.Client == nil || opts.StatePath == "" {
		return nil, errors.New("vmagent: a client and a state path are required")
	}
	if opts.Firewall == nil {
		opts.Firewall = &NFTables{}
	}
	if opts.Interfaces == nil {
		opts.Interfaces = Interfaces
	}
	if opts.ReportInterval <= 0 {
		opts.ReportInterval = time.Minute
	}
	if opts.RetryInterval <= 0 {
		opts.RetryInterval = 5 * time.Second
	}
	if opts.Dial == nil {
		opts.Dial = (&net.Dialer{}).DialContext
	}
	a := &Agent{opts: opts, applyCh: make(chan struct{}, 1), reportCh: make(chan struct{}, 1)}
	var err error
	if a.dns, err = newDNSManager(opts.DNS, a.save, opts.Log.WithName("dns")); err != nil {
		return nil, err
	}
	return a, nil
}

// Status is what the agent enforces now.
type Status struct {
	VirtualMachine string
	Applied        *wire.View
	Rules          int
	ApplyError     error
	Connected      bool
	// DNSServer is the member's DNS server the server offers; DNSForwarder
	// where the forwarder listens (zero: it does not run); DNSError the
	// last failure to configure DNS.
	DNSServer    string
	DNSForwarder netip.AddrPort
	DNSError     error
}

// Status returns what the agent enforces now.
func (a *Agent) Status() Status {
	a.mu.Lock()
	st := Status{VirtualMachine: a.vm, Applied: a.applied, Rules: a.rules, ApplyError: a.applyErr, Connected: a.connected}
	a.mu.Unlock()
	st.DNSServer, st.DNSForwarder, st.DNSError = a.dns.status()
	return st
}

// Run enforces the rules of the state file, if any, then follows the
// server until ctx ends. The rules in force stay in force when it returns.
func (a *Agent) Run(ctx context.Context) error {
	log := a.opts.Log
	st, err := ReadState(a.opts.StatePath)
	if err != nil {
		log.Error(err, "Ignoring the state file's rules; waiting for the server's")
	}
	view := st.View
	a.mu.Lock()
	a.vm, a.loaded = st.VirtualMachine, view
	a.counted = st.Counted
	if a.counted == nil {
		a.counted = RuleCounts{}
	}
	a.mu.Unlock()
	a.dns.load(st.DNS)
	if view != nil {
		a.latest = view
		a.applyLatest()
		log.Info("Enforcing the rules of the state file", "path", a.opts.StatePath, "epoch", view.Epoch,
			"generation", view.Generation, "endpoints", len(view.Endpoints), "rules", view.RuleCount(), "error", a.applyErr)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() { a.applyLoop(ctx) })
	wg.Go(func() { a.reportLoop(ctx) })
	wg.Go(func() { a.probeLoop(ctx) })
	if a.opts.DNS != nil || st.DNS != nil {
		wg.Go(func() { a.dns.run(ctx) })
	}
	a.trigger(a.reportCh)
	err = a.opts.Client.Watch(ctx, view, a.receive, a.connection)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// receive takes a new View from the watch; the apply loop applies it.
func (a *Agent) receive(view *wire.View, ev *wire.Event) {
	a.mu.Lock()
	a.latest = view
	a.mu.Unlock()
	a.opts.Log.V(1).Info("Received rules", "type", ev.Type, "generation", ev.Generation,
		"endpoints", len(ev.Endpoints), "deleted", len(ev.Deleted))
	a.trigger(a.applyCh)
}

func (a *Agent) connection(err error) {
	a.mu.Lock()
	was := a.connected
	a.connected = err == nil
	a.mu.Unlock()
	switch {
	case err == nil && !was:
		a.opts.Log.Info("Connected to the policy distribution server")
		a.trigger(a.reportCh)
	case err != nil && was:
		a.opts.Log.Info("Lost the policy distribution server; keeping the last good rules", "error", err)
	}
}

func (a *Agent) trigger(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (a *Agent) applyLoop(ctx context.Context) {
	retry := time.NewTicker(a.opts.RetryInterval)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.applyCh:
		case <-retry.C:
		}
		a.applyLatest()
	}
}

// applyLatest applies the newest View unless it is in force, and saves it.
func (a *Agent) applyLatest() {
	a.mu.Lock()
	view, applied, failed := a.latest, a.applied, a.applyErr != nil
	a.mu.Unlock()
	if view == nil || (view == applied && !failed) {
		return
	}
	start := time.Now()
	a.fwMu.Lock()
	res, err := a.opts.Firewall.Apply(view)
	a.mu.Lock()
	a.applyErr = err
	if err == nil {
		a.applied, a.rules = view, view.RuleCount()
		a.counted = keepCounts(a.counted, res.Replaced, view)
	}
	a.mu.Unlock()
	a.fwMu.Unlock()
	if res.CountError != nil {
		a.opts.Log.Error(res.CountError, "Reading the counters of the rules replaced; what they counted is lost")
	}
	if err == nil {
		if serr := a.save(); serr != nil {
			a.opts.Log.Error(serr, "Saving the state file; the rules are in force but not kept across a restart")
		}
	}
	if err != nil {
		a.opts.Log.Error(err, "Applying rules failed; the previous rules stay in force", "generation", view.Generation)
	} else {
		a.opts.Log.Info("Applied rules", "epoch", view.Epoch, "generation", view.Generation, "endpoints", len(view.Endpoints),
			"rules", view.RuleCount(), "nftablesRules", res.Rules, "skipped", res.Skipped, "took", time.Since(start).Round(time.Microsecond))
	}
	a.trigger(a.reportCh)
}

func (a *Agent) reportLoop(ctx context.Context) {
	timer := time.NewTimer(a.opts.ReportInterval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.reportCh:
		case <-timer.C:
		}
		next := a.opts.ReportInterval
		if err := a.report(ctx); err != nil {
			a.opts.Log.V(1).Info("Report failed; retrying", "error", err)
			next = a.opts.RetryInterval
		}
		timer.Reset(next)
	}
}

func (a *Agent) report(ctx context.Context) error {
	st := a.Status()
	host, _ := os.Hostname()
	rep := wire.Report{AgentVersion: a.opts.Version, Hostname: host, Interfaces: a.opts.Interfaces(), AppliedRules: st.Rules}
	if st.Applied != nil {
		rep.AppliedEpoch, rep.AppliedGeneration = st.Applied.Epoch, st.Applied.Generation
	}
	if st.ApplyError != nil {
		rep.ApplyError = st.ApplyError.Error()
	}
	if counts, err := a.Counts(); err != nil {
		a.opts.Log.Error(err, "Reading the rules' counters; reporting without them")
	} else {
		rep.RuleCounts = counts.List()
	}
	resp, err := a.opts.Client.Report(ctx, rep)
	if err != nil {
		return err
	}
	a.dns.setMember(resp.DNSServer)
	a.mu.Lock()
	changed := a.vm != resp.VirtualMachine
	a.vm = resp.VirtualMachine
	a.mu.Unlock()
	if changed {
		a.opts.Log.Info("Registered", "virtualMachine", resp.VirtualMachine, "version", a.opts.Version, "interfaces", rep.Interfaces)
		return a.save()
	}
	return nil
}

// save writes the rules in force (those of the state file until others
// are), the VM they are for, and the DNS state to the state file.
func (a *Agent) save() error {
	a.saveMu.Lock()
	defer a.saveMu.Unlock()
	a.mu.Lock()
	st := State{VirtualMachine: a.vm, View: a.applied, Counted: a.counted}
	if st.View == nil {
		st.View = a.loaded
	}
	a.mu.Unlock()
	st.DNS = a.dns.state()
	if st.View == nil && st.DNS == nil {
		return nil
	}
	return SaveState(a.opts.StatePath, st)
}

// Counts returns what every rule the agent enforced counted: the counts of
// the tables it replaced and those of the rules in force. Nil, and no error,
// when its Firewall does not count.
func (a *Agent) Counts() (RuleCounts, error) {
	fw, ok := a.opts.Firewall.(Counter)
	if !ok {
		return nil, nil
	}
	a.fwMu.Lock()
	defer a.fwMu.Unlock()
	live, err := fw.Counters()
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	out := RuleCounts{}
	out.Add(a.counted)
	out.Add(live)
	return out, nil
}

// keepCounts adds what the replaced rules counted to counted, and forgets
// the rules of policies the new view no longer enforces (their totals
// start again if they come back), so the state file does not grow with
// every policy that ever was.
func keepCounts(counted, replaced RuleCounts, view *wire.View) RuleCounts {
	out := RuleCounts{}
	out.Add(counted)
	out.Add(replaced)
	enforced := map[wire.PolicyRef]bool{}
	for _, ep := range view.Endpoints {
		for _, r := range ep.RuleList() {
			enforced[r.Policy] = true
		}
	}
	for k := range out {
		if !enforced[k.Policy] {
			delete(out, k)
		}
	}
	return out
}

// Interfaces returns the names of the host's network interfaces but
// loopback, sorted.
func Interfaces() []string {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var out []string
	for _, i := range ifaces {
		if i.Flags&net.FlagLoopback == 0 {
			out = append(out, i.Name)
		}
	}
	slices.Sort(out)
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}
