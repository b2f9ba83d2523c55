// Package scale is the short version of `make bench-scale` (docs/scale.md)
// that `make test` runs: a federation of 10 light members and 3
// supervisors, a few exports to DNS in every member, and one kill -9 of a
// supervisor. It fails when leadership changes without a failure, when an
// export takes far longer than the benchmark's bound to reach every
// member, or when a failed supervisor's members are not led again fast.
package scale

import (
	"context"
	"fmt"
	"maps"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/test/framework"
)

const (
	nMembers     = 10
	nSupervisors = 3
	namespace    = "scale"
	// exportBound is how long an export may take to reach every member:
	// the benchmark's p99 target at 10 members is 1 s; this is the "wide
	// margin" that fails on a regression, not on a slow machine.
	exportBound = 20 * time.Second
	// failoverBound: the benchmark's target is 5 s.
	failoverBound = 15 * time.Second
)

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	framework.MainWith(m, nMembers, &clusters, framework.Options{Light: true})
}

func TestScaleShort(t *testing.T) {
	ctx := t.Context()
	fctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	fed, err := clusters.Federate(fctx, "scale-e2e", nSupervisors)
	if err != nil {
		t.Fatalf("forming the federation: %v", err)
	}
	fed.LogManagersOnFailure(t)
	var opts sandbox.MemberServicesOptions
	if opts.MemberController, err = framework.Binary("member-controller"); err != nil {
		t.Fatal(err)
	}
	if opts.CoreDNS, err = framework.Binary("coredns"); err != nil {
		t.Fatal(err)
	}
	if err := clusters.Sandbox.StartMemberServices(fctx, opts); err != nil {
		t.Fatalf("starting the member controllers and DNS servers: %v", err)
	}
	st, err := clusters.Sandbox.LoadState()
	if err != nil {
		t.Fatal(err)
	}
	dnsOf := map[string]string{}
	for _, p := range st.Clusters {
		dnsOf[p.Name] = p.DNS.Endpoint()
	}
	fed.WaitSettled(t, 90*time.Second)
	before := transitions(t, fed)
	for _, m := range clusters.Names {
		framework.EnsureNamespaces(t, clusters.Client(t, m), namespace)
	}

	t.Run("exports reach every member", func(t *testing.T) {
		for i := range 5 {
			exporter := clusters.Names[i%2]
			name := fmt.Sprintf("web-%d", i)
			took := exportAndWait(t, exporter, name, dnsOf)
			t.Logf("%s from %s: imported, sliced and answered in all %d members in %s", name, exporter, nMembers, took.Round(time.Millisecond))
		}
	})

	t.Run("no change of leader without a failure", func(t *testing.T) {
		if after := transitions(t, fed); !maps.Equal(after, before) {
			t.Errorf("leader Leases changed hands %d times while every supervisor ran: %v", sum(after)-sum(before), diff(before, after))
		}
	})

	t.Run("kill -9 of a supervisor: its members led again", func(t *testing.T) {
		leaders := fed.Leaders(t)
		victim := busiest(leaders, fed.Supervisors)
		var orphans []string
		for m, l := range leaders {
			if l == victim {
				orphans = append(orphans, m)
			}
		}
		start := time.Now()
		fed.Signal(t, victim, syscall.SIGKILL)
		framework.EventuallyEvery(t, failoverBound, 50*time.Millisecond, func() error {
			for _, m := range orphans {
				if h, _ := fed.Lease(t, m); h == "" || h == victim {
					return fmt.Errorf("%s still led by %q", m, h)
				}
			}
			return nil
		})
		t.Logf("the %d members %s led are led again %s after its kill -9", len(orphans), victim, time.Since(start).Round(10*time.Millisecond))
		// The new leaders work: an export reaches every member.
		took := exportAndWait(t, clusters.Names[0], "after-failover", dnsOf)
		t.Logf("an export after the failover reached every member in %s", took.Round(time.Millisecond))
	})
}

// exportAndWait exports a NodePort Service of exporter and waits until
// every member has its ServiceImport with an IP, an imported slice with
// an endpoint, and a DNS answer with that IP.
func exportAndWait(t *testing.T, exporter, name string, dnsOf map[string]string) time.Duration {
	t.Helper()
	ctx := t.Context()
	c := clusters.Client(t, exporter)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if err := c.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Create(ctx, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range clusters.Names {
		mc := clusters.Client(t, m)
		// Every member within exportBound of the export (checked once more
		// for a member looked at after the bound).
		framework.EventuallyEvery(t, max(exportBound-time.Since(start), 100*time.Millisecond), 50*time.Millisecond, func() error {
			si := &mcsv1beta1.ServiceImport{}
			if err := mc.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, si); err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
			if len(si.Spec.IPs) == 0 {
				return fmt.Errorf("%s: ServiceImport without an IP", m)
			}
			slices := &discoveryv1.EndpointSliceList{}
			if err := mc.List(ctx, slices, client.InNamespace(namespace), client.MatchingLabels{mcsv1beta1.LabelServiceName: name}); err != nil {
				return err
			}
			endpoints := 0
			for _, s := range slices.Items {
				endpoints += len(s.Endpoints)
			}
			if endpoints == 0 {
				return fmt.Errorf("%s: no imported endpoint", m)
			}
			return answers(dnsOf[m], name+"."+namespace+".svc.clusterset.local.", si.Spec.IPs[0])
		})
	}
	return time.Since(start)
}

// answers asks server for name's A record and wants ip.
func answers(server, name, ip string) error {
	q := new(dns.Msg)
	q.SetQuestion(name, dns.TypeA)
	r, _, err := (&dns.Client{Timeout: time.Second}).Exchange(q, server)
	if err != nil {
		return fmt.Errorf("asking %s for %s: %w", server, name, err)
	}
	for _, rr := range r.Answer {
		if a, ok := rr.(*dns.A); ok && a.A.Equal(net.ParseIP(ip)) {
			return nil
		}
	}
	return fmt.Errorf("%s answers %s with %v, want %s", server, name, r.Answer, ip)
}

// transitions are every member's leader Lease transitions.
func transitions(t *testing.T, fed *framework.Federation) map[string]int32 {
	t.Helper()
	out := map[string]int32{}
	for _, m := range fed.Members {
		_, out[m] = fed.Lease(t, m)
	}
	return out
}

func sum(m map[string]int32) int32 {
	var n int32
	for _, v := range m {
		n += v
	}
	return n
}

func diff(before, after map[string]int32) map[string]int32 {
	out := map[string]int32{}
	for m, v := range after {
		if d := v - before[m]; d != 0 {
			out[m] = d
		}
	}
	return out
}

// busiest is the supervisor leading the most members.
func busiest(leaders map[string]string, supervisors []string) string {
	load := framework.Count(leaders)
	best := supervisors[0]
	for _, s := range supervisors {
		if load[s] > load[best] {
			best = s
		}
	}
	return best
}
