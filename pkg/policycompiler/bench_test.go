package policycompiler

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// The benchmark's world: 100 Namespaces of 1,000 ExternalEntities each,
// 9,000 Antrea NetworkPolicies (90 per Namespace), 1,000
// ClusterNetworkPolicies and 100 ClusterGroups. Each entity carries app (50
// values), tier (4) and zone (8) labels; half have a named port.
const (
	benchNamespaces     = 100
	benchEntitiesPerNS  = 1000
	benchANNPsPerNS     = 90
	benchACNPs          = 1000
	benchClusterGroups  = 100
	benchSamplesPerStep = 200
)

var benchTiers = []string{"", policyrules.TierSecurityOps, policyrules.TierPlatform}

type benchWorld struct {
	namespaces []any
	entities   []*antreav1alpha2.ExternalEntity
	groups     []any
	policies   []any
}

func newBenchWorld() *benchWorld {
	w := &benchWorld{}
	for n := range benchNamespaces {
		ns := fmt.Sprintf("ns-%03d", n)
		w.namespaces = append(w.namespaces, &Namespace{Name: ns, Labels: map[string]string{
			"env": []string{"prod", "dev"}[n%2], "team": fmt.Sprintf("t%d", n%10), "kubernetes.io/metadata.name": ns,
		}})
		for j := range benchEntitiesPerNS {
			w.entities = append(w.entities, benchEntity(ns, n*1024+j+1, j))
		}
		for p := range benchANNPsPerNS {
			w.policies = append(w.policies, benchANNP(ns, p, 443))
		}
	}
	for q := range benchACNPs {
		w.policies = append(w.policies, benchACNP(q, 22))
	}
	for k := range benchClusterGroups {
		w.groups = append(w.groups, &antreav1beta1.ClusterGroup{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cg-%d", k)},
			Spec: antreav1beta1.GroupSpec{
				// Only even apps have db entities (j%4 == 2 needs j even).
				ExternalEntitySelector: matchLabels("tier", "db", "app", fmt.Sprintf("app-%d", 2*(k%25))),
				NamespaceSelector:      matchLabels("team", fmt.Sprintf("t%d", k%10)),
			},
		})
	}
	return w
}

func benchEntity(ns string, address, j int) *antreav1alpha2.ExternalEntity {
	ip := fmt.Sprintf("10.%d.%d.%d", address>>16, (address>>8)&255, address&255)
	ee := newEE(ns, fmt.Sprintf("ee-%d", j), ip,
		eeLabels("app", fmt.Sprintf("app-%d", j%50), "tier", []string{"web", "app", "db", "cache"}[j%4], "zone", fmt.Sprintf("z%d", j%8)),
		eeNode(fmt.Sprintf("vm-%s-%d", ns, j)))
	if j%2 == 0 {
		ee.Spec.Ports = []antreav1alpha2.NamedPort{{Name: "http", Port: int32(8080 + j%3)}}
	}
	return ee
}

func benchANNP(ns string, p, port int) *antreav1beta1.NetworkPolicy {
	app := func(i int) string { return fmt.Sprintf("app-%d", i%50) }
	named := intstr.FromString("http")
	return newANNP(ns, fmt.Sprintf("annp-%d", p), float64(p%20+1), inTier(benchTiers[p%3]), appliedToEEs("app", app(p)),
		ingress(
			newRule(antreav1beta1.RuleActionAllow, ruleName("from-web"), fromEEs("tier", "web"), tcpPort(port)),
			newRule(antreav1beta1.RuleActionAllow, ruleName("from-admin"), fromCIDR(fmt.Sprintf("192.168.%d.0/24", p%256), fmt.Sprintf("192.168.%d.0/26", p%256)), tcpPort(22)),
			newRule(antreav1beta1.RuleActionDrop, ruleName("from-team"), func(r *antreav1beta1.Rule) {
				r.From = append(r.From, antreav1beta1.NetworkPolicyPeer{
					ExternalEntitySelector: matchLabels("app", app(p)), NamespaceSelector: matchLabels("team", fmt.Sprintf("t%d", p%10)),
				})
			}),
		),
		egress(
			newRule(antreav1beta1.RuleActionAllow, ruleName("to-next-app"), toEEs("app", app(p+1)), func(r *antreav1beta1.Rule) {
				r.Ports = append(r.Ports, antreav1beta1.NetworkPolicyPort{Port: &named})
			}),
			newRule(antreav1beta1.RuleActionDrop, ruleName("drop-rest")),
		),
	)
}

func benchACNP(q, port int) *antreav1beta1.ClusterNetworkPolicy {
	tiers := []string{policyrules.TierEmergency, policyrules.TierSecurityOps, policyrules.TierNetworkOps}
	return newACNP(fmt.Sprintf("acnp-%d", q), float64(q%50+1), inTier(tiers[q%3]),
		func(s *policySpecFields) {
			s.appliedTo = append(s.appliedTo, antreav1beta1.AppliedTo{
				ExternalEntitySelector: matchLabels("zone", fmt.Sprintf("z%d", q%8), "app", fmt.Sprintf("app-%d", q%50)),
				NamespaceSelector:      matchLabels("env", "prod"),
			})
		},
		ingress(
			newRule(antreav1beta1.RuleActionPass, ruleName("pass-same-ns"), func(r *antreav1beta1.Rule) {
				r.From = append(r.From, antreav1beta1.NetworkPolicyPeer{
					Namespaces: &antreav1beta1.PeerNamespaces{Match: antreav1beta1.NamespaceMatchSelf}, ExternalEntitySelector: matchLabels("tier", "app"),
				})
			}),
			newRule(antreav1beta1.RuleActionDrop, ruleName("drop-internal"), fromCIDR("10.0.0.0/8", fmt.Sprintf("10.%d.0.0/16", q%100)), tcpPort(port)),
		),
		egress(
			newRule(antreav1beta1.RuleActionAllow, ruleName("to-db-group"), tcpPort(5432), func(r *antreav1beta1.Rule) {
				r.To = append(r.To, antreav1beta1.NetworkPolicyPeer{Group: fmt.Sprintf("cg-%d", q%benchClusterGroups)})
			}),
			newRule(antreav1beta1.RuleActionReject, ruleName("no-cache"), func(r *antreav1beta1.Rule) {
				r.To = append(r.To, antreav1beta1.NetworkPolicyPeer{
					ExternalEntitySelector: matchLabels("tier", "cache"), NamespaceSelector: matchLabels("team", fmt.Sprintf("t%d", q%10)),
				})
			}),
		),
	)
}

// compileWorld builds a compiler from w and returns it with the number of
// endpoints Changed reported.
func compileWorld(b *testing.B, w *benchWorld) (*Compiler, int) {
	b.Helper()
	c := New()
	for _, group := range [][]any{w.namespaces, w.groups} {
		if err := c.Upsert(group...); err != nil {
			b.Fatal(err)
		}
	}
	for _, ee := range w.entities {
		if err := c.Upsert(ee); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Upsert(w.policies...); err != nil {
		b.Fatal(err)
	}
	return c, len(c.Changed())
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkFullCompile compiles 10k policies over 100k ExternalEntities
// from nothing. Target: < 10 s.
func BenchmarkFullCompile(b *testing.B) {
	w := newBenchWorld()
	before := heapInUse()
	b.ResetTimer()
	var c *Compiler
	var endpoints int
	for range b.N {
		c, endpoints = compileWorld(b, w)
	}
	b.StopTimer()
	perCompile := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perCompile, "s/compile")
	b.ReportMetric(float64(len(w.entities))/perCompile, "entities/s")
	b.ReportMetric(float64(len(w.policies))/perCompile, "policies/s")
	b.ReportMetric(float64(heapInUse()-before)/(1<<20), "heap-MB")
	b.ReportMetric(float64(countRules(c))/float64(endpoints), "rules/endpoint")
	if endpoints != len(w.entities) {
		b.Fatalf("%d endpoints changed, want %d", endpoints, len(w.entities))
	}
}

func countRules(c *Compiler) int {
	n := 0
	for _, st := range c.endpoints {
		n += len(st.rules)
	}
	return n
}

// BenchmarkIncrementalChange measures one change realised (Upsert, then
// Changed): an ExternalEntity's app label, and a port of a policy (an
// Antrea NetworkPolicy applied to 20 endpoints, then a ClusterNetworkPolicy
// applied to 250, in turn). Target: p99 < 100 ms.
func BenchmarkIncrementalChange(b *testing.B) {
	w := newBenchWorld()
	c, _ := compileWorld(b, w)
	b.Run("entity-label", func(b *testing.B) {
		step := func(i int) any {
			ee := w.entities[(i*7919)%len(w.entities)].DeepCopy()
			ee.Labels["app"] = fmt.Sprintf("app-%d", (i*31)%50)
			return ee
		}
		measureChanges(b, c, step)
	})
	b.Run("policy", func(b *testing.B) {
		step := func(i int) any {
			// Each policy changes once per step: 443 -> 8443, 22 -> 2222.
			if i%2 == 0 {
				return benchANNP(fmt.Sprintf("ns-%03d", i%benchNamespaces), i%benchANNPsPerNS, 8443)
			}
			return benchACNP(i%benchACNPs, 2222)
		}
		measureChanges(b, c, step)
	})
}

func measureChanges(b *testing.B, c *Compiler, step func(int) any) {
	b.Helper()
	var samples []time.Duration
	changed := 0
	b.ResetTimer()
	for n := range b.N {
		for i := range benchSamplesPerStep {
			obj := step(n*benchSamplesPerStep + i)
			start := time.Now()
			if err := c.Upsert(obj); err != nil {
				b.Fatal(err)
			}
			changed += len(c.Changed())
			samples = append(samples, time.Since(start))
		}
	}
	b.StopTimer()
	slices.Sort(samples)
	percentile := func(p float64) float64 {
		return float64(samples[int(p*float64(len(samples)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(percentile(0.50), "p50-ms")
	b.ReportMetric(percentile(0.99), "p99-ms")
	b.ReportMetric(float64(changed)/float64(len(samples)), "endpoints/change")
}
