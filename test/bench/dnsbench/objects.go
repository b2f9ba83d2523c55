package main

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"os"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
	mcsclient "sigs.k8s.io/mcs-api/pkg/client/clientset/versioned"
)

const (
	federationID = "bench"
	domain       = "cluster.local."
	namespaces   = 100
)

// sourceClusters are the clusters every imported Service has endpoints in.
var sourceClusters = []string{"c1", "c2"}

// record is one imported Service as the bench writes it and as both
// servers answer it.
type record struct {
	ns, name string
	ip       netip.Addr              // the cluster-set IP; none when headless
	eps      map[string][]netip.Addr // ready endpoints by source cluster
	// hosts are the endpoints' hostnames of a headless record, the same in
	// every source cluster (a StatefulSet in each).
	hosts []string
}

func (r record) headless() bool { return !r.ip.IsValid() }

// records are n imported Services spread over the namespaces, each with a
// cluster-set IP and two endpoints in each source cluster.
func records(n int) []record {
	out := make([]record, n)
	for i := range out {
		r := record{ns: fmt.Sprintf("bench-%02d", i%namespaces), name: fmt.Sprintf("svc-%d", i),
			ip: netip.AddrFrom4([4]byte{10, 100, byte(i >> 8), byte(i)}), eps: map[string][]netip.Addr{}}
		for c, id := range sourceClusters {
			for e := range 2 {
				r.eps[id] = append(r.eps[id], netip.AddrFrom4([4]byte{byte(172 + c), byte(16 + e), byte(i >> 8), byte(i)}))
			}
		}
		out[i] = r
	}
	return out
}

// headlessRecords are n headless imported Services spread over the
// namespaces, each with two endpoints with hostnames (<name>-0 and
// <name>-1) in each source cluster.
func headlessRecords(n int) []record {
	out := make([]record, n)
	for j := range out {
		name := fmt.Sprintf("hl-%d", j)
		r := record{ns: fmt.Sprintf("bench-%02d", j%namespaces), name: name, eps: map[string][]netip.Addr{},
			hosts: []string{name + "-0", name + "-1"}}
		for c, id := range sourceClusters {
			for e := range r.hosts {
				r.eps[id] = append(r.eps[id], netip.AddrFrom4([4]byte{byte(100 + c), byte(64 + e), byte(j >> 8), byte(j)}))
			}
		}
		out[j] = r
	}
	return out
}

// clustersetName is <svc>.<ns>.svc.clusterset.local.
func (r record) clustersetName() string { return r.name + "." + r.ns + ".svc.clusterset.local." }

// serviceName and clusterName are the federation names of a record.
func (r record) serviceName() string {
	return r.name + "." + r.ns + "." + federationID + ".svc." + domain
}

func (r record) clusterName(c string) string {
	return r.name + "." + r.ns + "." + c + "." + federationID + ".svc." + domain
}

// writeZone writes the records as a zone file for the file plugin.
func writeZone(path string, recs []record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "$ORIGIN %s\n$TTL 5\n@ IN SOA ns.dns.%s hostmaster.%s 1 7200 1800 86400 5\n@ IN NS ns.dns.%s\nns.dns IN A 127.0.0.1\n",
		domain, domain, domain, domain)
	for _, r := range recs {
		if r.headless() {
			continue
		}
		fmt.Fprintf(w, "%s IN A %s\n", r.serviceName(), r.ip)
		for _, c := range sourceClusters {
			for _, a := range r.eps[c] {
				fmt.Fprintf(w, "%s IN A %s\n", r.clusterName(c), a)
			}
		}
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// writer creates the objects the import writer would: a ServiceImport and
// one EndpointSlice per source cluster for each record.
type writer struct {
	kube *kubernetes.Clientset
	mcs  *mcsclient.Clientset
}

func (w writer) createAll(ctx context.Context, recs []record, parallel int) error {
	for i := range namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%02d", i)}}
		if _, err := w.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	work := make(chan record)
	errs := make(chan error, parallel)
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				if err := w.create(ctx, r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for _, r := range recs {
		select {
		case work <- r:
		case err = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	if err != nil {
		return err
	}
	return <-errs
}

func (w writer) create(ctx context.Context, r record) error {
	si := &mcsv1beta1.ServiceImport{
		ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: r.name, Labels: map[string]string{mcsv1beta1.LabelServiceName: r.name}},
		Spec: mcsv1beta1.ServiceImportSpec{Type: mcsv1beta1.Headless,
			Ports: []mcsv1beta1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}}},
	}
	if !r.headless() {
		si.Spec.Type, si.Spec.IPs = mcsv1beta1.ClusterSetIP, []string{r.ip.String()}
	}
	if _, err := w.mcs.MulticlusterV1beta1().ServiceImports(r.ns).Create(ctx, si, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating ServiceImport %s/%s: %w", r.ns, r.name, err)
	}
	for _, c := range sourceClusters {
		s := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: r.name + "-" + c, Labels: map[string]string{
				mcsv1beta1.LabelServiceName: r.name, mcsv1beta1.LabelSourceCluster: c, discoveryv1.LabelManagedBy: "dnsbench"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To[int32](80)}},
		}
		for e, a := range r.eps[c] {
			ep := discoveryv1.Endpoint{Addresses: []string{a.String()}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}
			if r.headless() {
				ep.Hostname = ptr.To(r.hosts[e])
			}
			s.Endpoints = append(s.Endpoints, ep)
		}
		if _, err := w.kube.DiscoveryV1().EndpointSlices(r.ns).Create(ctx, s, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating EndpointSlice %s/%s: %w", r.ns, s.Name, err)
		}
	}
	return nil
}
