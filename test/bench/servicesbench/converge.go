package main

// The convergence of one mode: exports made, then watched and asked for in
// every member until each has its import, slice and DNS answer.

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// observed is, per member and Service, when its import (with IP), an
// imported slice with an endpoint, and the DNS answer were first seen.
type observed struct {
	mu   sync.Mutex
	ip   map[string]map[string]string       // member -> name -> import IP
	seen map[string]map[string][3]time.Time // member -> name -> [import, slice, dns]
	// exported is when each export reached the exporter's watch (the baseline).
	exported map[string]time.Time
}

func (o *observed) mark(member, name string, idx int, ip string) {
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.seen[member][name]
	if t[idx].IsZero() {
		t[idx] = now
		o.seen[member][name] = t
	}
	if ip != "" {
		o.ip[member][name] = ip
	}
}

func measure(ctx context.Context, members []member, prefix string, n int, interval time.Duration) (conv, base []float64, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	o := &observed{ip: map[string]map[string]string{}, seen: map[string]map[string][3]time.Time{}, exported: map[string]time.Time{}}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	// Every member's maps exist before the first goroutine reads them:
	// adding one later, beside a pollDNS already running, is a concurrent
	// write of the outer maps (a run at 30 members died of it).
	for _, m := range members {
		o.ip[m.name], o.seen[m.name] = map[string]string{}, map[string][3]time.Time{}
	}
	for _, m := range members {
		for _, list := range []client.ObjectList{&mcsv1beta1.ServiceImportList{}, &discoveryv1.EndpointSliceList{}, &mcsv1beta1.ServiceExportList{}} {
			w, err := m.c.Watch(ctx, list, client.InNamespace(namespace))
			if err != nil {
				return nil, nil, fmt.Errorf("watching %T in %s: %w", list, m.name, err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A watch the API server ends (a consumer too slow for its
				// cache, on a starved machine) is started again, without a
				// resourceVersion: it begins with every object as Added, so
				// nothing written meanwhile is missed (only seen late).
				for ctx.Err() == nil {
					consume(w, o, m.name, prefix)
					w.Stop()
					if ctx.Err() != nil {
						return
					}
					fmt.Fprintf(os.Stderr, "servicesbench: the watch of %T in %s ended; watching again\n", list, m.name)
					for ctx.Err() == nil {
						if w, err = m.c.Watch(ctx, list, client.InNamespace(namespace)); err == nil {
							break
						}
						time.Sleep(time.Second)
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pollDNS(ctx, o, m)
		}()
	}

	exporters := members[:2]
	name := func(i int) string { return fmt.Sprintf("%s-%03d", prefix, i) }
	for i := range n {
		if err := exporters[i%2].c.Create(ctx, nodePortService(name(i))); err != nil {
			return nil, nil, err
		}
	}
	time.Sleep(2 * time.Second) // the member controllers are done with the Services
	starts := make([]time.Time, n)
	for i := range n {
		starts[i] = time.Now()
		if err := exporters[i%2].c.Create(ctx, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name(i)}}); err != nil {
			return nil, nil, err
		}
		time.Sleep(interval)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for i := 0; i < n; {
		d, b, ok := o.latency(name(i), starts[i])
		if ok {
			if d > 2*time.Second {
				fmt.Fprintf(os.Stderr, "servicesbench: %s took %s; last: %s\n", name(i), d.Round(time.Millisecond), o.last(name(i), starts[i]))
			}
			conv, base = append(conv, float64(d.Microseconds())/1000), append(base, float64(b.Microseconds())/1000)
			i++
			continue
		}
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("%s did not converge in every member within 3 minutes: %s (%s)", name(i), o.missing(name(i)), stored(ctx, members, name(i)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return conv, base, nil
}

// consume marks what one watch of a member delivers until it ends.
func consume(w watch.Interface, o *observed, member, prefix string) {
	for ev := range w.ResultChan() {
		if ev.Type != watch.Added && ev.Type != watch.Modified {
			continue
		}
		switch x := ev.Object.(type) {
		case *mcsv1beta1.ServiceImport:
			if len(x.Spec.IPs) > 0 && strings.HasPrefix(x.Name, prefix) {
				o.mark(member, x.Name, 0, x.Spec.IPs[0])
			}
		case *discoveryv1.EndpointSlice:
			if name := x.Labels[mcsv1beta1.LabelServiceName]; len(x.Endpoints) > 0 && strings.HasPrefix(name, prefix) {
				o.mark(member, name, 1, "")
			}
		case *mcsv1beta1.ServiceExport:
			if ev.Type == watch.Added && strings.HasPrefix(x.Name, prefix) {
				o.mu.Lock()
				if _, ok := o.exported[x.Name]; !ok {
					o.exported[x.Name] = time.Now()
				}
				o.mu.Unlock()
			}
		}
	}
}

// latency is the time from start until name converged in every member, and
// until its export reached the exporter's watch; false if not yet.
func (o *observed) latency(name string, start time.Time) (time.Duration, time.Duration, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	exp, ok := o.exported[name]
	if !ok {
		return 0, 0, false
	}
	var last time.Time
	for _, byName := range o.seen {
		for _, x := range byName[name] {
			if x.IsZero() {
				return 0, 0, false
			}
			if x.After(last) {
				last = x
			}
		}
	}
	return last.Sub(start), exp.Sub(start), true
}

// last names the member and stage that came last for name, with when.
func (o *observed) last(name string, start time.Time) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var at time.Time
	var what string
	for m, byName := range o.seen {
		for i, x := range byName[name] {
			if x.After(at) {
				at, what = x, m+" "+[]string{"import", "slice", "dns"}[i]
			}
		}
	}
	var stages []string
	for m, byName := range o.seen {
		t := byName[name]
		stages = append(stages, fmt.Sprintf("%s %s/%s/%s", m, t[0].Sub(start).Round(time.Millisecond), t[1].Sub(start).Round(time.Millisecond), t[2].Sub(start).Round(time.Millisecond)))
	}
	sort.Strings(stages)
	return fmt.Sprintf("%s at %s (import/slice/dns per member: %s)", what, at.Sub(start).Round(time.Millisecond), strings.Join(stages, ", "))
}

func (o *observed) missing(name string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for m, byName := range o.seen {
		t := byName[name]
		for i, what := range []string{"import", "slice", "dns"} {
			if t[i].IsZero() {
				out = append(out, m+" "+what)
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// stored says what each member's API server holds of a Service's import
// (read now, not watched): whether a missing part was never written or
// only not seen by the bench's watches.
func stored(ctx context.Context, members []member, name string) string {
	var out []string
	for _, m := range members {
		si := &mcsv1beta1.ServiceImport{}
		ipOK := m.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, si) == nil && len(si.Spec.IPs) > 0
		slices := &discoveryv1.EndpointSliceList{}
		endpoints := 0
		if err := m.c.List(ctx, slices, client.InNamespace(namespace), client.MatchingLabels{mcsv1beta1.LabelServiceName: name}); err == nil {
			for _, sl := range slices.Items {
				endpoints += len(sl.Endpoints)
			}
		}
		if !ipOK || endpoints == 0 {
			out = append(out, fmt.Sprintf("%s stores an import with an IP: %t, %d slices with %d endpoints", m.name, ipOK, len(slices.Items), endpoints))
		}
	}
	if len(out) == 0 {
		return "every member stores the import and its endpoints: only the bench's watches missed them"
	}
	return strings.Join(out, "; ")
}

// pollDNS asks the member's DNS server, every 10 ms, for every name whose
// import the member has and whose answer was not yet seen (in parallel, so
// that one lost datagram does not hold up the others), and marks it when
// the answer is the import's IP.
func pollDNS(ctx context.Context, o *observed, m member) {
	c := &dns.Client{Timeout: 250 * time.Millisecond}
	for ctx.Err() == nil {
		o.mu.Lock()
		pending := map[string]string{}
		for name, ip := range o.ip[m.name] {
			if o.seen[m.name][name][2].IsZero() {
				pending[name] = ip
			}
		}
		o.mu.Unlock()
		var wg sync.WaitGroup
		limit := make(chan struct{}, 16)
		for name, ip := range pending {
			wg.Add(1)
			limit <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-limit }()
				q := new(dns.Msg)
				q.SetQuestion(name+"."+namespace+".svc.clusterset.local.", dns.TypeA)
				r, _, err := c.ExchangeContext(ctx, q, m.dns)
				if err != nil || r.Rcode != dns.RcodeSuccess {
					return
				}
				for _, rr := range r.Answer {
					if a, ok := rr.(*dns.A); ok && a.A.String() == ip {
						o.mark(m.name, name, 2, "")
					}
				}
			}()
		}
		wg.Wait()
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
}
