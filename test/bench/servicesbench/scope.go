package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/test/bench/benchtable"
)

// scopeLabel is the registry label the scoped exports select.
const scopeLabel = "bench-scope"

// measureScope measures a scope change beside an export and an unexport in
// the same run. member-1 exports k Services scoped to the members labelled
// bench-scope=in; each round labels the last member in (its imports are
// added) and out (withdrawn), in every supervisor's registry, then exports
// k fresh Services without a scope (added there) and unexports them
// (withdrawn). Each time is from the change until the last member holds
// the ServiceImport with its IP and its DNS server answers it, or holds no
// ServiceImport and answers NXDOMAIN.
func measureScope(ctx context.Context, members []member, supervisors, k, rounds int) ([]benchtable.Figure, error) {
	exporter, target := members[0], members[len(members)-1]
	w, err := watchImports(ctx, target)
	if err != nil {
		return nil, err
	}
	defer w.stop()
	scoped := make([]string, k)
	for i := range scoped {
		scoped[i] = fmt.Sprintf("scoped-%03d", i)
	}
	if err := createServices(ctx, exporter, scoped); err != nil {
		return nil, err
	}
	for _, name := range scoped {
		e := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
			Annotations: map[string]string{federationv1alpha1.AnnotationExportToSelector: scopeLabel + "=in"}}}
		if err := exporter.c.Create(ctx, e); err != nil {
			return nil, err
		}
	}
	var in, out, exported, unexported []float64
	for r := range rounds {
		fmt.Fprintf(os.Stderr, "servicesbench: scope round %d/%d: %s labelled in and out, %d Services exported and unexported\n", r+1, rounds, target.name, k)
		start := time.Now()
		if err := labelMember(ctx, members[:supervisors], target.name, "in"); err != nil {
			return nil, err
		}
		d, err := w.converge(ctx, target, scoped, true, start)
		if err != nil {
			return nil, fmt.Errorf("labelled in: %w", err)
		}
		in = append(in, d...)
		start = time.Now()
		if err := labelMember(ctx, members[:supervisors], target.name, ""); err != nil {
			return nil, err
		}
		if d, err = w.converge(ctx, target, scoped, false, start); err != nil {
			return nil, fmt.Errorf("labelled out: %w", err)
		}
		out = append(out, d...)

		plain := make([]string, k)
		for i := range plain {
			plain[i] = fmt.Sprintf("plain-%d-%03d", r, i)
		}
		if err := createServices(ctx, exporter, plain); err != nil {
			return nil, err
		}
		time.Sleep(2 * time.Second) // the member controller is done with the Services
		start = time.Now()
		for _, name := range plain {
			if err := exporter.c.Create(ctx, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}); err != nil {
				return nil, err
			}
		}
		if d, err = w.converge(ctx, target, plain, true, start); err != nil {
			return nil, fmt.Errorf("exported: %w", err)
		}
		exported = append(exported, d...)
		start = time.Now()
		for _, name := range plain {
			if err := exporter.c.Delete(ctx, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}); err != nil {
				return nil, err
			}
		}
		if d, err = w.converge(ctx, target, plain, false, start); err != nil {
			return nil, fmt.Errorf("unexported: %w", err)
		}
		unexported = append(unexported, d...)
	}
	label := fmt.Sprintf("%d members, scope change (%d Services x %d rounds)", len(members), k, rounds)
	var figures []benchtable.Figure
	figures = append(figures, benchtable.WithPercentiles(label+": member labelled in -> imports added", "ms", in)...)
	figures = append(figures, benchtable.WithPercentiles("  baseline: exported -> imports added", "ms", exported)...)
	r := benchtable.Ratio(benchtable.Percentile(in, 0.5), benchtable.Percentile(exported, 0.5))
	figures = append(figures, benchtable.Figure{Name: "  ratio p50 / baseline p50", Unit: "x", Median: r, Min: r, Max: r})
	figures = append(figures, benchtable.WithPercentiles("  member labelled out -> imports withdrawn", "ms", out)...)
	figures = append(figures, benchtable.WithPercentiles("  baseline: unexported -> imports withdrawn", "ms", unexported)...)
	r = benchtable.Ratio(benchtable.Percentile(out, 0.5), benchtable.Percentile(unexported, 0.5))
	figures = append(figures, benchtable.Figure{Name: "  ratio p50 / baseline p50", Unit: "x", Median: r, Min: r, Max: r})
	return figures, nil
}

// createServices creates a NodePort Service of each name in m.
func createServices(ctx context.Context, m member, names []string) error {
	for _, name := range names {
		if err := m.c.Create(ctx, nodePortService(name)); err != nil {
			return fmt.Errorf("creating Service %s in %s: %w", name, m.name, err)
		}
	}
	return nil
}

// nodePortService is the bench's Service of a name: NodePort, http 80.
func nodePortService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080)}}},
	}
}

// labelMember sets the scope label of member's registry entry in every
// supervisor to value, or removes it ("").
func labelMember(ctx context.Context, supervisors []member, member, value string) error {
	for _, s := range supervisors {
		mc := &federationv1alpha1.MemberCluster{}
		if err := s.c.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: member}, mc); err != nil {
			return fmt.Errorf("the registry entry of %s in %s: %w", member, s.name, err)
		}
		patch := client.MergeFrom(mc.DeepCopy())
		if mc.Labels == nil {
			mc.Labels = map[string]string{}
		}
		if value == "" {
			delete(mc.Labels, scopeLabel)
		} else {
			mc.Labels[scopeLabel] = value
		}
		if err := s.c.Patch(ctx, mc, patch); err != nil {
			return fmt.Errorf("labelling %s in %s: %w", member, s.name, err)
		}
	}
	return nil
}

// importWatch follows a member's ServiceImports: the IP of each present one.
type importWatch struct {
	mu   sync.Mutex
	ips  map[string]string // name -> IP ("" while it has none)
	stop func()
}

func watchImports(ctx context.Context, m member) (*importWatch, error) {
	ctx, cancel := context.WithCancel(ctx)
	w, err := m.c.Watch(ctx, &mcsv1beta1.ServiceImportList{}, client.InNamespace(namespace))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("watching the ServiceImports of %s: %w", m.name, err)
	}
	iw := &importWatch{ips: map[string]string{}}
	done := make(chan struct{})
	iw.stop = func() { cancel(); w.Stop(); <-done }
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			imp, ok := ev.Object.(*mcsv1beta1.ServiceImport)
			if !ok {
				continue
			}
			iw.mu.Lock()
			switch {
			case ev.Type == watch.Deleted:
				delete(iw.ips, imp.Name)
			case len(imp.Spec.IPs) > 0:
				iw.ips[imp.Name] = imp.Spec.IPs[0]
			default:
				iw.ips[imp.Name] = ""
			}
			iw.mu.Unlock()
		}
	}()
	return iw, nil
}

// converge waits until every name is imported into m (present) or not
// (!present), the import and m's DNS answer both, and returns each name's
// time from start in milliseconds.
func (iw *importWatch) converge(ctx context.Context, m member, names []string, present bool, start time.Time) ([]float64, error) {
	c := &dns.Client{Timeout: 250 * time.Millisecond}
	done := map[string]float64{}
	deadline := start.Add(2 * time.Minute)
	for len(done) < len(names) {
		for _, name := range names {
			if _, ok := done[name]; ok {
				continue
			}
			iw.mu.Lock()
			ip, has := iw.ips[name]
			iw.mu.Unlock()
			if has != present || present && ip == "" {
				continue
			}
			q := new(dns.Msg)
			q.SetQuestion(name+"."+namespace+".svc.clusterset.local.", dns.TypeA)
			r, _, err := c.ExchangeContext(ctx, q, m.dns)
			if err != nil {
				continue
			}
			answered := false
			for _, rr := range r.Answer {
				if a, ok := rr.(*dns.A); ok && a.A.String() == ip {
					answered = true
				}
			}
			if present && answered || !present && r.Rcode == dns.RcodeNameError {
				done[name] = float64(time.Since(start).Microseconds()) / 1000
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d of %d Services not converged in %s within 2 minutes", len(names)-len(done), len(names), m.name)
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := make([]float64, 0, len(names))
	for _, name := range names {
		out = append(out, done[name])
	}
	return out, nil
}
