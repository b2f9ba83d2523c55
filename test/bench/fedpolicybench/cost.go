package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Write counters of the controllers, by the labels the bench reads.
const (
	// leaderWrites counts the writes of every leader controller: controller,
	// member (led), kind, verb. The two controllers measured:
	leaderWrites        = "antreaplus_leader_controller_writes_total"
	entityImportWrites  = "entityimport"
	serviceImportWrites = "serviceimport"
	derivedWrites       = "antreaplus_federatedpolicy_writes_total"
)

// Members that import what member-1 exports: the others for entities;
// every member for a federated Service (the exporter imports it too, as
// the Multi-Cluster Services API wants).
var (
	entityImporters  = []string{enforcer, "member-3"}
	serviceImporters = []string{exporter, enforcer, "member-3"}
)

// series is one sample of a scrape.
type series struct {
	name   string
	labels map[string]string
	value  float64
}

var labelPair = regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)

// scrape reads a Prometheus text endpoint.
func scrape(ctx context.Context, url string) ([]series, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	var out []series
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if i < 0 || err != nil {
			continue
		}
		s := series{name: line[:i], labels: map[string]string{}, value: v}
		if j := strings.IndexByte(s.name, '{'); j >= 0 {
			for _, m := range labelPair.FindAllStringSubmatch(s.name[j:], -1) {
				s.labels[m[1]] = m[2]
			}
			s.name = s.name[:j]
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// counters is a scrape of every controller the cost reads, by label value.
type counters struct {
	// leader is the federation managers' writes into each led member
	// (summed over the managers), by metric, member and kind.
	leader map[string]float64
	// derived is member-2's member controller's writes, by kind.
	derived map[string]float64
}

func key(parts ...string) string { return strings.Join(parts, "/") }

func (b *bench) counters(ctx context.Context) (counters, error) {
	c := counters{leader: map[string]float64{}, derived: map[string]float64{}}
	for _, url := range b.e.managerMetrics {
		ss, err := scrape(ctx, url)
		if err != nil {
			return c, err
		}
		for _, s := range ss {
			if ctl := s.labels["controller"]; s.name == leaderWrites && (ctl == entityImportWrites || ctl == serviceImportWrites) {
				c.leader[key(ctl, s.labels["member"], s.labels["kind"])] += s.value
			}
		}
	}
	ss, err := scrape(ctx, b.e.members[enforcer].controllerMetrics)
	if err != nil {
		return c, err
	}
	for _, s := range ss {
		if s.name == derivedWrites {
			c.derived[s.labels["kind"]] += s.value
		}
	}
	return c, nil
}

// cost is what n changes of one kind cost in writes.
type cost struct {
	kind      string
	changes   int
	importers []string
	// perImporter are the leader's writes per change into each importing member.
	perImporter map[string]float64
	// leaderKinds are the leader's writes per change per importing member, by kind.
	leaderKinds map[string]float64
	// derived are member-2's member controller's writes per change, by kind.
	derived map[string]float64
}

// measureCost makes n changes alone, each waited for, and reads the write
// counters before and after.
func (b *bench) measureCost(ctx context.Context, kind, metric string, importers []string, n int, change func(i int) func() (netip.Addr, error)) (cost, error) {
	before, err := b.counters(ctx)
	if err != nil {
		return cost{}, err
	}
	for i := range n {
		if _, err := b.measure(ctx, kind, change(i)); err != nil {
			return cost{}, err
		}
	}
	if err := sleep(ctx, time.Second); err != nil { // the status writes that follow an apply
		return cost{}, err
	}
	after, err := b.counters(ctx)
	if err != nil {
		return cost{}, err
	}
	c := cost{kind: kind, changes: n, importers: importers, perImporter: map[string]float64{}, leaderKinds: map[string]float64{}, derived: map[string]float64{}}
	for k, v := range after.leader {
		parts := strings.Split(k, "/")
		if parts[0] != metric || v == before.leader[k] {
			continue
		}
		d := (v - before.leader[k]) / float64(n)
		c.perImporter[parts[1]] += d
		c.leaderKinds[parts[2]] += d / float64(len(importers))
	}
	for k, v := range after.derived {
		if d := v - before.derived[k]; d != 0 {
			c.derived[k] = d / float64(n)
		}
	}
	return c, nil
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
