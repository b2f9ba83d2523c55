package services

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

type exportMod func(*mcsv1beta1.ServiceExport)

func exported(labels, annotations map[string]string) exportMod {
	return func(e *mcsv1beta1.ServiceExport) {
		e.Spec.ExportedLabels, e.Spec.ExportedAnnotations = labels, annotations
	}
}

func flatNetwork() exportMod {
	return func(e *mcsv1beta1.ServiceExport) {
		e.Annotations = map[string]string{"federation.antreaplus.io/flat-network": "true"}
	}
}

// exportWith exports a Service with the given export spec.
func exportWith(t testing.TB, cluster, ns, name string, mods ...exportMod) {
	t.Helper()
	e := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, m := range mods {
		m(e)
	}
	if err := cl(t, cluster).Create(bg, e); err != nil {
		t.Fatalf("exporting %s/%s from %s: %v", ns, name, cluster, err)
	}
}

// exportLBWith creates a LoadBalancer Service with its ingress IPs (of any
// family: the cloud plays along) and exports it.
func exportLBWith(t testing.TB, cluster, ns, name string, ips []string, mods []svcMod, emods ...exportMod) *corev1.Service {
	t.Helper()
	s := createService(t, cluster, ns, name, append([]svcMod{loadBalancer(), withoutSelector()}, mods...)...)
	s.Status.LoadBalancer.Ingress = nil
	for _, ip := range ips {
		s.Status.LoadBalancer.Ingress = append(s.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: ip})
	}
	if err := cl(t, cluster).Status().Update(bg, s); err != nil {
		t.Fatalf("setting the ingress of %s in %s: %v", name, cluster, err)
	}
	exportWith(t, cluster, ns, name, emods...)
	return s
}

func withPorts(ps ...corev1.ServicePort) svcMod { return func(s *corev1.Service) { s.Spec.Ports = ps } }

func tcp(name string, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, Protocol: corev1.ProtocolTCP}
}

func internalTrafficPolicy(p corev1.ServiceInternalTrafficPolicy) svcMod {
	return func(s *corev1.Service) { s.Spec.InternalTrafficPolicy = &p }
}

func trafficDistribution(v string) svcMod {
	return func(s *corev1.Service) { s.Spec.TrafficDistribution = &v }
}

func headless() svcMod { return func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone } }

func withMetadata(labels, annotations map[string]string) svcMod {
	return func(s *corev1.Service) { s.Labels, s.Annotations = labels, annotations }
}

// writeSlice plays the EndpointSlice controller of a dual-stack cluster
// for a selector-less Service: kwok gives Pods IPv4 addresses only.
func writeSlice(t testing.TB, cluster, ns, service string, t6 discoveryv1.AddressType, port int32, ips ...string) {
	t.Helper()
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: service + "-",
		Labels: map[string]string{discoveryv1.LabelServiceName: service, discoveryv1.LabelManagedBy: "e2e.antreaplus.io"}},
		AddressType: t6, Ports: []discoveryv1.EndpointPort{{Name: ptr.To("http"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(port)}}}
	for i, ip := range ips {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Hostname: ptr.To(fmt.Sprintf("%s-%d", service, i)),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}})
	}
	if err := cl(t, cluster).Create(bg, s); err != nil {
		t.Fatalf("writing an EndpointSlice of %s in %s: %v", service, cluster, err)
	}
}

// ready is the Ready condition of an import as "Status/Reason".
func (i imported) ready() string {
	if i.imp == nil {
		return ""
	}
	c := meta.FindStatusCondition(i.imp.Status.Conditions, string(mcsv1beta1.ServiceImportConditionReady))
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

// addressTypes is "source=IPv4,source=IPv6,..." of the imported slices, sorted.
func (i imported) addressTypes() string {
	var out []string
	for src, ss := range i.slices {
		for _, s := range ss {
			out = append(out, src+"="+string(s.AddressType))
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// hints is "address>zone+zone ..." of a source's imported endpoints, sorted.
func (i imported) hints(source string) []string {
	var out []string
	for _, s := range i.slices[source] {
		for _, e := range s.Endpoints {
			var zones []string
			if e.Hints != nil {
				for _, z := range e.Hints.ForZones {
					zones = append(zones, z.Name)
				}
			}
			out = append(out, e.Addresses[0]+">"+strings.Join(zones, "+"))
		}
	}
	slices.Sort(out)
	return out
}

func readService(t testing.TB, cluster, ns, name string) *corev1.Service {
	t.Helper()
	s := &corev1.Service{}
	if err := cl(t, cluster).Get(bg, client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatalf("reading Service %s/%s in %s: %v", ns, name, cluster, err)
	}
	return s
}
