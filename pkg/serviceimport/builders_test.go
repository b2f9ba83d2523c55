package serviceimport

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

type svcMod func(*corev1.Service)

func ports(ps ...corev1.ServicePort) svcMod { return func(s *corev1.Service) { s.Spec.Ports = ps } }

func tcpPort(name string, n int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: n, Protocol: corev1.ProtocolTCP}
}

func itp(p corev1.ServiceInternalTrafficPolicy) svcMod {
	return func(s *corev1.Service) { s.Spec.InternalTrafficPolicy = &p }
}

func td(v string) svcMod { return func(s *corev1.Service) { s.Spec.TrafficDistribution = &v } }

func nodePortType() svcMod {
	return func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort }
}

func serviceLabels(kv ...string) svcMod { return func(s *corev1.Service) { s.Labels = pairs(kv) } }

type expMod func(*mcsv1beta1.ServiceExport)

func exportedLabels(kv ...string) expMod {
	return func(e *mcsv1beta1.ServiceExport) { e.Spec.ExportedLabels = pairs(kv) }
}

func exportedAnnotations(kv ...string) expMod {
	return func(e *mcsv1beta1.ServiceExport) { e.Spec.ExportedAnnotations = pairs(kv) }
}

func exportLabels(kv ...string) expMod {
	return func(e *mcsv1beta1.ServiceExport) { e.Labels = pairs(kv) }
}

func pairs(kv []string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// exportService creates, in namespace ns of a cluster, a LoadBalancer
// Service (with the ingress IPs given) or, with nodePortType, a NodePort
// Service without selector, and its export.
func exportService(t *testing.T, c client.Client, ns, name string, ingress []string, mods []svcMod, emods ...expMod) *corev1.Service {
	t.Helper()
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{tcpPort("http", 80)}}}
	for _, m := range mods {
		m(s)
	}
	if err := c.Create(bg, s); err != nil {
		t.Fatalf("creating Service %s: %v", name, err)
	}
	setIngress(t, c, s, ingress...)
	e := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, m := range emods {
		m(e)
	}
	if err := c.Create(bg, e); err != nil {
		t.Fatalf("exporting %s: %v", name, err)
	}
	return s
}

func setIngress(t *testing.T, c client.Client, s *corev1.Service, ips ...string) {
	t.Helper()
	if len(ips) == 0 {
		return
	}
	s.Status.LoadBalancer.Ingress = nil
	for _, ip := range ips {
		s.Status.LoadBalancer.Ingress = append(s.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: ip})
	}
	if err := c.Status().Update(bg, s); err != nil {
		t.Fatalf("setting the ingress of %s: %v", s.Name, err)
	}
}

// exportCondition is an export's condition as "Status/Reason" and its message.
func exportCondition(c client.Client, ns, name string, typ mcsv1beta1.ServiceExportConditionType) (string, string) {
	e := &mcsv1beta1.ServiceExport{}
	if err := c.Get(bg, client.ObjectKey{Namespace: ns, Name: name}, e); err != nil {
		return "", err.Error()
	}
	if cond := meta.FindStatusCondition(e.Status.Conditions, string(typ)); cond != nil {
		return string(cond.Status) + "/" + cond.Reason, cond.Message
	}
	return "", ""
}

// readImport reads a member's ServiceImport (nil when absent), derived
// Service (nil when absent) and imported slices of a name.
func readImport(t *testing.T, c client.Client, ns, name string) (*mcsv1beta1.ServiceImport, *corev1.Service, []discoveryv1.EndpointSlice) {
	t.Helper()
	imp := &mcsv1beta1.ServiceImport{}
	if err := c.Get(bg, client.ObjectKey{Namespace: ns, Name: name}, imp); err != nil {
		imp = nil
	}
	svc := &corev1.Service{}
	if err := c.Get(bg, client.ObjectKey{Namespace: ns, Name: "mcs-" + name}, svc); err != nil {
		svc = nil
	}
	slices := &discoveryv1.EndpointSliceList{}
	if err := c.List(bg, slices, client.InNamespace(ns), client.MatchingLabels{mcsv1beta1.LabelServiceName: name}); err != nil {
		t.Fatal(err)
	}
	return imp, svc, slices.Items
}
