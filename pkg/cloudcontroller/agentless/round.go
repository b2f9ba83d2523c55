package agentless

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/pkg/cloud/sgtranslate"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
)

// Reasons of the findings a round adds to the translation's.
const (
	// ReasonSyncFailed: the sync of the endpoint's VPC failed.
	ReasonSyncFailed = "SyncFailed"
	// ReasonNotSupported: the account's provider has no agentless
	// enforcement (provider.ErrNotSupported; AWS and Azure both have it).
	ReasonNotSupported = "NotSupported"
	// ReasonNoProvider: the account has no live provider (its credentials
	// are missing or refused).
	ReasonNoProvider = "ProviderNotReady"
	// ReasonCloudRefused: the cloud cannot hold the endpoint's group or
	// attachment (a quota).
	ReasonCloudRefused = "CloudRefused"
)

// vpcOutcome is what the sync of one location did.
type vpcOutcome struct {
	loc    sgtranslate.Location
	result provider.SyncResult
	err    error
	reason string // of err
}

// round syncs every location once with view's rules and reports. retry is
// true when part of the view could not be placed or synced.
func (s *Syncer) round(ctx context.Context, view *wire.View, trigger string) (retry bool, err error) {
	start := time.Now()
	inv, err := readInventory(ctx, s.opts.Reader, s.opts.Tenants)
	if err != nil {
		return true, err
	}
	for loc := range s.synced {
		if s.opts.Tenants != nil && !s.opts.Tenants.Owns(loc.Account.Namespace) {
			delete(s.synced, loc) // its owner manages its groups now
		}
	}
	eps, err := inv.endpoints(ctx, s.opts.Reader, view)
	if err != nil {
		return true, err
	}
	waiting := false
	for i := range eps {
		// An endpoint not placed yet (the inventory is behind the rules)
		// is tried again soon; one that never will be is not.
		if !settled(&eps[i]) && eps[i].Interface == nil && eps[i].Service == nil && len(eps[i].Rules) > 0 {
			waiting = true
		}
	}
	res := sgtranslate.Translate(s.opts.Prefix, eps)
	imported := inv.locations()
	locs := maps.Clone(imported)
	for loc := range res.Specs {
		locs[loc] = true
	}
	for loc := range s.synced {
		locs[loc] = true
	}
	outcomes := s.syncAll(ctx, slices.SortedFunc(maps.Keys(locs), compareLocations), res)
	report, counts := buildReport(view, res, outcomes)
	writes := 0
	for _, o := range outcomes {
		writes += o.result.Writes
		s.opts.Metrics.VPCSyncs.WithLabelValues(resultLabel(o)).Inc()
		_, wanted := res.Specs[o.loc]
		switch {
		case o.err != nil:
			retry = true
		case wanted || imported[o.loc]:
			s.synced[o.loc] = true
		default:
			delete(s.synced, o.loc) // synced empty: nothing managed is left
		}
	}
	retry = retry || waiting
	m := s.opts.Metrics
	m.Rounds.WithLabelValues(trigger).Inc()
	m.RoundSeconds.Observe(time.Since(start).Seconds())
	m.CloudWrites.Add(float64(writes))
	m.Endpoints.Set(float64(len(view.Endpoints)))
	m.Generation.Set(float64(view.Generation))
	for _, sev := range []string{wire.SeverityUnrealized, wire.SeverityApproximated} {
		m.Findings.WithLabelValues(sev).Set(float64(counts[sev]))
	}
	report.Reporter = s.opts.Reporter
	rerr := s.opts.Consumer.ReportAgentless(ctx, report)
	m.Reports.WithLabelValues(map[bool]string{true: "ok", false: "error"}[rerr == nil]).Inc()
	s.opts.Log.V(logLevel(writes, trigger)).Info("Synced security groups", "trigger", trigger, "generation", view.Generation,
		"endpoints", len(view.Endpoints), "vpcs", len(outcomes), "cloudWrites", writes, "unrealized", counts[wire.SeverityUnrealized],
		"approximated", counts[wire.SeverityApproximated], "took", time.Since(start).Round(time.Millisecond))
	if rerr != nil {
		return true, fmt.Errorf("reporting to the policy controller: %w", rerr)
	}
	return retry, nil
}

// logLevel logs rounds that wrote to the cloud, or came from a change, at
// the default level; quiet resyncs at V(1).
func logLevel(writes int, trigger string) int {
	if writes > 0 || trigger != "resync" {
		return 0
	}
	return 1
}

// syncAll syncs each location, Concurrency at a time.
func (s *Syncer) syncAll(ctx context.Context, locs []sgtranslate.Location, res sgtranslate.Result) []vpcOutcome {
	out := make([]vpcOutcome, len(locs))
	sem := make(chan struct{}, s.opts.Concurrency)
	var wg sync.WaitGroup
	for i, loc := range locs {
		spec, ok := res.Specs[loc]
		if !ok {
			spec = provider.SecurityGroupSpec{VPCID: loc.VPC, Prefix: s.opts.Prefix}
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i] = s.syncVPC(ctx, loc, spec)
		})
	}
	wg.Wait()
	return out
}

func (s *Syncer) syncVPC(ctx context.Context, loc sgtranslate.Location, spec provider.SecurityGroupSpec) vpcOutcome {
	o := vpcOutcome{loc: loc}
	entry, ok := s.opts.Providers.Get(loc.Account)
	if !ok {
		o.err, o.reason = fmt.Errorf("account %s has no provider: its credentials are missing or were refused", loc.Account), ReasonNoProvider
		return o
	}
	o.result, o.err = entry.Provider.SyncSecurityGroups(ctx, loc.Region, spec)
	switch {
	case errors.Is(o.err, provider.ErrNotSupported):
		o.reason = ReasonNotSupported
	case o.err != nil:
		o.reason = ReasonSyncFailed
		o.err = fmt.Errorf("syncing the security groups of %s: %w", loc, o.err)
		s.opts.Log.Error(o.err, "Syncing security groups", "account", loc.Account, "region", loc.Region, "vpc", loc.VPC)
	case o.result.Writes > 0:
		s.opts.Log.Info("Security groups changed", "account", loc.Account, "region", loc.Region, "vpc", loc.VPC,
			"writes", o.result.Writes, "created", o.result.Created, "deleted", o.result.Deleted,
			"rulesAdded", o.result.RulesAdded, "rulesRemoved", o.result.RulesRemoved, "interfacesChanged", o.result.InterfacesChanged)
	}
	return o
}

func resultLabel(o vpcOutcome) string {
	switch o.reason {
	case "":
		return "ok"
	case ReasonNotSupported:
		return "not_supported"
	case ReasonNoProvider:
		return "no_provider"
	}
	return "error"
}

// buildReport turns the translation's findings and the syncs' outcomes
// into the report of the round, and counts findings by severity.
func buildReport(view *wire.View, res sgtranslate.Result, outcomes []vpcOutcome) (wire.AgentlessReport, map[string]int) {
	byEndpoint := map[string][]wire.Finding{}
	add := func(ep string, f wire.Finding) {
		if !slices.Contains(byEndpoint[ep], f) {
			byEndpoint[ep] = append(byEndpoint[ep], f)
		}
	}
	for _, f := range res.Findings {
		add(f.Endpoint, wire.Finding{Policy: f.Policy, Rule: f.Rule, Severity: string(f.Severity), Reason: f.Reason, Message: f.Message})
	}
	for _, o := range outcomes {
		owners := res.Owners[o.loc]
		if o.err != nil {
			for _, ep := range slices.Sorted(maps.Values(owners)) {
				add(ep, wire.Finding{Severity: wire.SeverityUnrealized, Reason: o.reason, Message: o.err.Error()})
			}
			continue
		}
		for _, u := range o.result.Unrealized {
			if ep, ok := owners[u.Object]; ok {
				reason := ReasonCloudRefused
				if u.Code == provider.UnrealizedNoSecurityGroups || u.Code == provider.UnrealizedClusterMember {
					reason = u.Code
				}
				add(ep, wire.Finding{Severity: wire.SeverityUnrealized, Reason: reason, Message: u.Object + ": " + u.Reason})
			}
		}
	}
	rep := wire.AgentlessReport{AppliedEpoch: view.Epoch, AppliedGeneration: view.Generation}
	counts := map[string]int{}
	for _, ep := range slices.Sorted(maps.Keys(byEndpoint)) {
		if _, inView := view.Endpoints[ep]; !inView {
			continue
		}
		rep.Endpoints = append(rep.Endpoints, wire.EndpointRealization{Name: ep, Findings: byEndpoint[ep]})
		for _, f := range byEndpoint[ep] {
			counts[f.Severity]++
		}
	}
	return rep, counts
}

func compareLocations(a, b sgtranslate.Location) int {
	return cmp.Or(cmp.Compare(a.Account.Namespace, b.Account.Namespace), cmp.Compare(a.Account.Name, b.Account.Name),
		cmp.Compare(a.Region, b.Region), cmp.Compare(a.VPC, b.VPC))
}
