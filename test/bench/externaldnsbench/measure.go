package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/test/bench/benchtable"
)

// hostnameAnnotation is what ExternalDNS's service source publishes a
// Service under.
const hostnameAnnotation = "external-dns.kubernetes.io/hostname"

func run(ctx context.Context, s settings) ([]benchtable.Figure, error) {
	e, err := setUp(ctx, s)
	if e != nil {
		defer e.tearDown(s.keepLogs)
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(os.Stderr, "externaldnsbench: federation and external DNS ready; creating the Services")
	fed := func(i int) string { return fmt.Sprintf("fed-%03d", i) }
	base := func(i int) string { return fmt.Sprintf("base-%03d", i) }
	ipOf := func(i int) string { return fmt.Sprintf("198.18.%d.%d", i/250, i%250+1) }
	baseIPOf := func(i int) string { return fmt.Sprintf("198.19.%d.%d", i/250, i%250+1) }
	fedName := func(i int) string { return fmt.Sprintf("%s.%s.%s.svc.%s", fed(i), namespace, fedID, domain) }
	baseName := func(i int) string { return fmt.Sprintf("%s.%s", base(i), domain) }

	// The federated Services have their load balancer already; the
	// baseline's get it when timed.
	baseSvcs := make([]*corev1.Service, s.services)
	for i := range s.services {
		svc := lbService(fed(i), nil)
		if err := e.b.Create(ctx, svc); err != nil {
			return nil, err
		}
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ipOf(i)}}
		if err := e.b.Status().Update(ctx, svc); err != nil {
			return nil, err
		}
		baseSvcs[i] = lbService(base(i), map[string]string{hostnameAnnotation: baseName(i)})
		if err := e.a.Create(ctx, baseSvcs[i]); err != nil {
			return nil, err
		}
	}
	time.Sleep(2 * time.Second)

	p := newPoller(e.dns, s.pollEvery)
	defer p.stop()
	fedStart, baseStart := make([]time.Time, s.services), make([]time.Time, s.services)
	for i := range s.services {
		fedStart[i] = time.Now()
		if err := e.b.Create(ctx, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fed(i)}}); err != nil {
			return nil, err
		}
		p.await(fedName(i), ipOf(i))
		baseStart[i] = time.Now()
		baseSvcs[i].Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: baseIPOf(i)}}
		if err := e.a.Status().Update(ctx, baseSvcs[i]); err != nil {
			return nil, err
		}
		p.await(baseName(i), baseIPOf(i))
		time.Sleep(s.interval)
	}
	fedTimes, err := p.wait(fedStart, fedName, s.answerTimeout)
	if err != nil {
		return nil, fmt.Errorf("federated names: %w", err)
	}
	baseTimes, err := p.wait(baseStart, baseName, s.answerTimeout)
	if err != nil {
		return nil, fmt.Errorf("baseline names: %w", err)
	}
	figures := benchtable.WithPercentiles("export -> federated name answered (LB in member-2, written by member-1's leader)", "ms", fedTimes)
	figures = append(figures, benchtable.WithPercentiles("  baseline: LB ingress -> plain Service's name answered (ExternalDNS service source)", "ms", baseTimes)...)
	r := benchtable.Ratio(benchtable.Percentile(fedTimes, 0.5), benchtable.Percentile(baseTimes, 0.5))
	figures = append(figures, benchtable.Figure{Name: "  ratio p50 / baseline p50", Unit: "x", Median: r, Min: r, Max: r})

	// The exporter's API server dies: its names are withdrawn past the
	// grace; it comes back: every name answered again.
	fmt.Fprintln(os.Stderr, "externaldnsbench: killing member-2's API server")
	if err := e.killAPIServer(exporter); err != nil {
		return nil, err
	}
	killed := time.Now()
	gone := make([]time.Time, s.services)
	for i := range s.services {
		gone[i] = killed
		p.awaitGone(fedName(i))
	}
	withdrawn, err := p.wait(gone, fedName, s.answerTimeout)
	if err != nil {
		return nil, fmt.Errorf("withdrawing member-2's names: %w", err)
	}
	fmt.Fprintln(os.Stderr, "externaldnsbench: member-2's names withdrawn; starting its API server again")
	if _, err := e.sb.Up(ctx, e.members); err != nil {
		return nil, fmt.Errorf("restarting member-2: %w", err)
	}
	back := make([]time.Time, s.services)
	for i := range s.services {
		back[i] = time.Now()
		p.await(fedName(i), ipOf(i))
	}
	recovered, err := p.wait(back, fedName, s.answerTimeout)
	if err != nil {
		return nil, fmt.Errorf("member-2's names after its return: %w", err)
	}
	figures = append(figures, benchtable.WithPercentiles(fmt.Sprintf("exporter's API server killed -> its names withdrawn (grace %s + hold-down 5s)", s.grace), "ms", withdrawn)...)
	figures = append(figures, benchtable.WithPercentiles("exporter's API server back -> its names answered again", "ms", recovered)...)
	return figures, nil
}

func lbService(name string, annotations map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: annotations},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
}

// poller asks the external DNS server for pending names until each is
// answered as expected, and records when.
type poller struct {
	server string
	every  time.Duration

	mu      sync.Mutex
	pending map[string]string // name -> the address wanted; "" for NXDOMAIN
	seen    map[string]time.Time
	done    chan struct{}
	wg      sync.WaitGroup
}

func newPoller(server string, every time.Duration) *poller {
	p := &poller{server: server, every: every, pending: map[string]string{}, seen: map[string]time.Time{}, done: make(chan struct{})}
	p.wg.Go(p.loop)
	return p
}

func (p *poller) await(name, ip string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending[name] = ip
	delete(p.seen, name)
}

func (p *poller) awaitGone(name string) { p.await(name, "") }

func (p *poller) stop() {
	close(p.done)
	p.wg.Wait()
}

func (p *poller) loop() {
	c := &dns.Client{Timeout: time.Second}
	for {
		select {
		case <-p.done:
			return
		case <-time.After(p.every):
		}
		p.mu.Lock()
		names := make(map[string]string, len(p.pending))
		for n, ip := range p.pending {
			names[n] = ip
		}
		p.mu.Unlock()
		for name, want := range names {
			m := new(dns.Msg)
			m.SetQuestion(dns.Fqdn(name), dns.TypeA)
			r, _, err := c.Exchange(m, p.server)
			if err != nil {
				continue
			}
			ok := want == "" && r.Rcode == dns.RcodeNameError
			if want != "" && r.Rcode == dns.RcodeSuccess && len(r.Answer) == 1 {
				if a, isA := r.Answer[0].(*dns.A); isA && a.A.String() == want {
					ok = true
				}
			}
			if ok {
				now := time.Now()
				p.mu.Lock()
				if p.pending[name] == want {
					delete(p.pending, name)
					p.seen[name] = now
				}
				p.mu.Unlock()
			}
		}
	}
}

// wait waits until every name(i) was answered and returns, in ms, the time
// from start[i] to its answer.
func (p *poller) wait(start []time.Time, name func(int) string, timeout time.Duration) ([]float64, error) {
	deadline := time.Now().Add(timeout)
	for {
		p.mu.Lock()
		var missing []string
		out := make([]float64, 0, len(start))
		for i := range start {
			at, ok := p.seen[name(i)]
			if !ok {
				missing = append(missing, name(i))
				continue
			}
			out = append(out, float64(at.Sub(start[i]))/float64(time.Millisecond))
		}
		p.mu.Unlock()
		if len(missing) == 0 {
			slices.Sort(out)
			return out, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d names not answered as expected within %s, e.g. %s", len(missing), timeout, missing[0])
		}
		time.Sleep(100 * time.Millisecond)
	}
}
