package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/sgtranslate"
)

// sample is what one run measured on one cloud.
type sample struct {
	endpoints, groups, rules        float64
	compile, translate, initialSync float64 // seconds
	initial, resync, change         counted
	initialWrites, resyncWrites     float64 // as the provider counted them
	resyncMaxWrites                 int     // the most writes of any resync, as the emulator counted them
	resyncTranslate, resyncSync     float64
	changeTime                      float64
	changedEndpoints                float64
	bare                            counted
	bareTime                        float64
	unrealized, approximated        float64 // translation findings
	refused                         float64 // parts the cloud cannot hold (quotas)
	initialByOp                     map[string]int
	refusals                        []string
}

// measure runs the whole path once on a fresh emulated account.
func measure(ctx context.Context, s settings, newCloud func(settings) (*cloud, error)) (sample, error) {
	var m sample
	c, err := newCloud(s)
	if err != nil {
		return m, err
	}
	defer c.close()
	p := &pipeline{c: c}
	if err := p.importInventory(ctx); err != nil {
		return m, err
	}
	p.policies = policies(p.ns, s.policies, s.apps())
	start := time.Now()
	if err := p.compile(); err != nil {
		return m, err
	}
	m.compile = time.Since(start).Seconds()
	if err := c.warmUp(ctx); err != nil {
		return m, err
	}
	if err := m.initialRealisation(ctx, p); err != nil {
		return m, err
	}
	if err := m.steadyState(ctx, p, s.repeats); err != nil {
		return m, err
	}
	return m, m.policyChange(ctx, p)
}

// initialRealisation: every group created, filled and attached.
func (m *sample) initialRealisation(ctx context.Context, p *pipeline) error {
	p.c.reset()
	start := time.Now()
	res := sgtranslate.Translate(groupPrefix, p.place())
	m.translate = time.Since(start).Seconds()
	start = time.Now()
	out, err := p.syncAll(ctx, res)
	if err != nil {
		return err
	}
	m.initialSync = time.Since(start).Seconds()
	m.initial, m.initialWrites, m.initialByOp = p.c.counted(), float64(out.writes), p.c.calls()
	m.refused = float64(len(out.unrealized))
	for _, u := range out.unrealized {
		m.refusals = append(m.refusals, u.Object+": "+u.Reason)
	}
	m.endpoints = float64(len(p.view.Endpoints))
	for _, spec := range res.Specs {
		m.groups += float64(len(spec.Groups))
		for _, g := range spec.Groups {
			m.rules += float64(len(g.Ingress) + len(g.Egress))
		}
	}
	for _, f := range res.Findings {
		switch f.Severity {
		case sgtranslate.SeverityUnrealized:
			m.unrealized++
		case sgtranslate.SeverityApproximated:
			m.approximated++
		}
	}
	return nil
}

// steadyState measures, repeats times in turn, the baseline (the bare
// SDK read floor of a round) and a resync with nothing changed (the
// syncer's round every minute), and keeps the fastest of each: the one
// least disturbed by whatever else runs on the machine. Calls are those
// of the last repeat, writes the most of any.
func (m *sample) steadyState(ctx context.Context, p *pipeline, repeats int) error {
	c := p.c
	if err := c.bareRead(ctx); err != nil { // warm up: the Azure token
		return fmt.Errorf("%s: bare read: %w", c.name, err)
	}
	for i := range repeats {
		c.reset()
		start := time.Now()
		if err := c.bareRead(ctx); err != nil {
			return fmt.Errorf("%s: bare read: %w", c.name, err)
		}
		bare := time.Since(start).Seconds()
		m.bare = c.counted()

		c.reset()
		start = time.Now()
		res := sgtranslate.Translate(groupPrefix, p.place())
		translate := time.Since(start).Seconds()
		start = time.Now()
		out, err := p.syncAll(ctx, res)
		if err != nil {
			return err
		}
		took := time.Since(start).Seconds()
		m.resync = c.counted()
		m.resyncWrites = max(m.resyncWrites, float64(out.writes))
		m.resyncMaxWrites = max(m.resyncMaxWrites, m.resync.writes)
		if i == 0 || bare < m.bareTime {
			m.bareTime = bare
		}
		if i == 0 || took < m.resyncSync {
			m.resyncTranslate, m.resyncSync = translate, took
		}
	}
	return nil
}

// policyChange: a port added to the web policy of one application,
// compiled, distributed, translated and synced.
func (m *sample) policyChange(ctx context.Context, p *pipeline) error {
	changed := withPort(p.policies[min(1, len(p.policies)-1)], changedPort)
	p.c.reset()
	start := time.Now()
	n, err := p.change(changed)
	if err != nil {
		return err
	}
	if _, err := p.syncAll(ctx, sgtranslate.Translate(groupPrefix, p.place())); err != nil {
		return err
	}
	m.changeTime, m.change, m.changedEndpoints = time.Since(start).Seconds(), p.c.counted(), float64(n)
	return nil
}

// logSample says what a run did, for the one watching.
func logSample(name string, run int, m sample) {
	fmt.Fprintf(os.Stderr, "run %d %s: %v endpoints, %v groups, %v rules; initial %d reads %d writes in %.2fs (translate %.0fms); "+
		"resync %d reads %d writes in %.0fms; change of %v endpoints %d reads %d writes; %v refused by the cloud\n",
		run+1, name, m.endpoints, m.groups, m.rules, m.initial.reads, m.initial.writes, m.initialSync, m.translate*1000,
		m.resync.reads, m.resync.writes, (m.resyncTranslate+m.resyncSync)*1000, m.changedEndpoints, m.change.reads, m.change.writes, m.refused)
	fmt.Fprintf(os.Stderr, "run %d %s: initial calls by operation %v\n", run+1, name, m.initialByOp)
	for _, r := range m.refusals {
		fmt.Fprintf(os.Stderr, "run %d %s: refused: %s\n", run+1, name, r)
	}
	if int(m.initialWrites) != m.initial.writes || int(m.resyncWrites) != m.resync.writes {
		fmt.Fprintf(os.Stderr, "run %d %s: the provider counted %v initial and %v resync writes, the emulator %d and %d\n",
			run+1, name, m.initialWrites, m.resyncWrites, m.initial.writes, m.resync.writes)
	}
}
