package agentless

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/pkg/cloud/sgtranslate"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// Consumer is the syncer's side of the policy distribution: the
// agentless scope's watch and the report. *consumer.Client is one.
type Consumer interface {
	Watch(ctx context.Context, view *wire.View, handle consumer.Handler, onConnection consumer.ConnectionHandler) error
	ReportAgentless(ctx context.Context, rep wire.AgentlessReport) error
}

// Providers gives the live provider of an account. *accountprovider.Set
// is one.
type Providers interface {
	Get(account types.NamespacedName) (accountprovider.Entry, bool)
}

// Options configure a Syncer.
type Options struct {
	// Consumer watches the agentless rules and takes the reports. Required.
	Consumer Consumer
	// Reader reads NetworkInterfaces and ExternalEntities (the manager's
	// cached client). Required.
	Reader client.Reader
	// Providers are the accounts' providers. Required.
	Providers Providers
	// Prefix names the managed security groups (default "antreaplus-").
	// Only groups with this prefix are ever changed or deleted.
	Prefix string
	// Interval is how often every VPC is synced again even when the rules
	// did not change, which corrects drift (default 1 minute).
	Interval time.Duration
	// Settle is how long a change waits for others before a round starts
	// (default 100 ms).
	Settle time.Duration
	// RetryInterval is how soon a round runs again when an endpoint could
	// not be placed yet or a VPC failed (default 5 s, at most Interval).
	RetryInterval time.Duration
	// Concurrency is the number of VPCs synced at a time (default 4).
	Concurrency int
	// Tenants, if set, limits enforcement to the tenants this replica
	// manages: the interfaces of the others are not read, and the groups
	// of their VPCs are left to their owner (never cleaned up here).
	Tenants tenancy.Gate
	// Reporter names this replica in its reports, so that the policy
	// controller merges the reports of replicas sharing the tenants.
	Reporter string
	Metrics  *Metrics
	Log      logr.Logger
}

// Syncer keeps the managed security groups of agentless VMs in step with
// their rules. It is a manager.Runnable, run under the manager's leader
// election when there is one; with tenancy, every replica runs one for the
// tenants it owns (Options.Tenants) and reports as Options.Reporter.
type Syncer struct {
	opts Options
	// synced are the locations whose managed groups this process has
	// synced and may still hold some; only the round touches it.
	synced map[sgtranslate.Location]bool
	latest atomic.Pointer[wire.View]
	wake   chan struct{}
}

// New returns a Syncer; Start runs it.
func New(opts Options) *Syncer {
	if opts.Prefix == "" {
		opts.Prefix = "antreaplus-"
	}
	if opts.Interval <= 0 {
		opts.Interval = time.Minute
	}
	if opts.Settle <= 0 {
		opts.Settle = 100 * time.Millisecond
	}
	if opts.RetryInterval <= 0 {
		opts.RetryInterval = 5 * time.Second
	}
	opts.RetryInterval = min(opts.RetryInterval, opts.Interval)
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics()
	}
	return &Syncer{opts: opts, synced: map[sgtranslate.Location]bool{}, wake: make(chan struct{}, 1)}
}

// Start watches the agentless rules and syncs until ctx ends.
func (s *Syncer) Start(ctx context.Context) error {
	log := s.opts.Log
	var wg sync.WaitGroup
	wg.Go(func() {
		err := s.opts.Consumer.Watch(ctx, nil, func(v *wire.View, _ *wire.Event) {
			s.latest.Store(v)
			s.poke()
		}, func(err error) {
			if err == nil {
				s.opts.Metrics.Connected.Set(1)
				log.Info("Watching the agentless rules")
				return
			}
			s.opts.Metrics.Connected.Set(0)
		})
		if err != nil && !errors.Is(err, context.Canceled) {
			log.Error(err, "Watching the agentless rules ended")
		}
	})
	defer wg.Wait()
	timer := time.NewTimer(s.opts.Interval)
	defer timer.Stop()
	for {
		trigger := "resync"
		select {
		case <-ctx.Done():
			return nil
		case <-s.wake:
			trigger = "change"
			if !sleep(ctx, s.opts.Settle) {
				return nil
			}
		case <-timer.C:
		}
		view := s.latest.Load()
		next := s.opts.Interval
		if view != nil {
			retry, err := s.round(ctx, view, trigger)
			if err != nil {
				log.Error(err, "Syncing security groups; retrying", "in", s.opts.RetryInterval)
			}
			if retry || err != nil {
				next = s.opts.RetryInterval
			}
		}
		timer.Reset(next)
	}
}

func (s *Syncer) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
