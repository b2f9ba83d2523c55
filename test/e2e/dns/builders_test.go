package dns

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// managedBy is an endpointslice.kubernetes.io/managed-by value of the
// import writer (a label value: no "/").
const managedBy = "antreaplus-federation"

type importMod func(*mcsv1beta1.ServiceImport)

// serviceImport is a ServiceImport of type ClusterSetIP unless modified.
func serviceImport(ns, name string, mods ...importMod) *mcsv1beta1.ServiceImport {
	si := &mcsv1beta1.ServiceImport{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{mcsv1beta1.LabelServiceName: name}},
		Spec:       mcsv1beta1.ServiceImportSpec{Type: mcsv1beta1.ClusterSetIP},
	}
	for _, m := range mods {
		m(si)
	}
	return si
}

func headless(si *mcsv1beta1.ServiceImport) { si.Spec.Type = mcsv1beta1.Headless }

// preferClose sets trafficDistribution PreferClose, as the merge does when
// the oldest export's Service has it.
func preferClose(si *mcsv1beta1.ServiceImport) {
	si.Spec.TrafficDistribution = ptr.To(corev1.ServiceTrafficDistributionPreferClose)
}

func withIPs(ips ...string) importMod {
	return func(si *mcsv1beta1.ServiceImport) { si.Spec.IPs = ips }
}

func withPorts(ports ...mcsv1beta1.ServicePort) importMod {
	return func(si *mcsv1beta1.ServiceImport) { si.Spec.Ports = ports }
}

func servicePort(name string, port int32) mcsv1beta1.ServicePort {
	return mcsv1beta1.ServicePort{Name: name, Protocol: corev1.ProtocolTCP, Port: port}
}

type sliceMod func(*discoveryv1.EndpointSlice)

// endpointSlice is an IPv4 EndpointSlice of svc from cluster, labelled as
// the import writer labels them.
func endpointSlice(ns, svc, cluster string, mods ...sliceMod) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: svc + "-" + cluster, Labels: map[string]string{
			mcsv1beta1.LabelServiceName:   svc,
			mcsv1beta1.LabelSourceCluster: cluster,
			discoveryv1.LabelManagedBy:    managedBy,
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	for _, m := range mods {
		m(s)
	}
	return s
}

func ipv6(s *discoveryv1.EndpointSlice) {
	s.AddressType = discoveryv1.AddressTypeIPv6
	s.Name += "-v6"
}

func slicePort(name string, port int32) sliceMod {
	return func(s *discoveryv1.EndpointSlice) {
		s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: ptr.To(name), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(port)})
	}
}

// region records the source cluster's region, as the import writer does.
func region(r string) sliceMod {
	return func(s *discoveryv1.EndpointSlice) {
		s.Annotations = map[string]string{federationv1alpha1.AnnotationSourceRegion: r}
	}
}

// inZone adds a ready endpoint in a zone.
func inZone(zone, hostname string, addrs ...string) sliceMod {
	return func(s *discoveryv1.EndpointSlice) {
		withEndpoint(hostname, true, addrs...)(s)
		s.Endpoints[len(s.Endpoints)-1].Zone = ptr.To(zone)
	}
}

// endpoint adds a ready endpoint; hostname may be empty.
func endpoint(hostname string, addrs ...string) sliceMod {
	return withEndpoint(hostname, true, addrs...)
}

// notReady adds an endpoint that is not ready.
func notReady(hostname string, addrs ...string) sliceMod {
	return withEndpoint(hostname, false, addrs...)
}

func withEndpoint(hostname string, ready bool, addrs ...string) sliceMod {
	return func(s *discoveryv1.EndpointSlice) {
		e := discoveryv1.Endpoint{Addresses: addrs, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)}}
		if hostname != "" {
			e.Hostname = ptr.To(hostname)
		}
		s.Endpoints = append(s.Endpoints, e)
	}
}

func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	c := clusters.Client(t, member)
	for _, o := range objs {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

func update(t *testing.T, o client.Object) {
	t.Helper()
	if err := clusters.Client(t, member).Update(t.Context(), o); err != nil {
		t.Fatalf("updating %T %s: %v", o, o.GetName(), err)
	}
}

func remove(t *testing.T, objs ...client.Object) {
	t.Helper()
	c := clusters.Client(t, member)
	for _, o := range objs {
		if err := c.Delete(t.Context(), o); err != nil {
			t.Fatalf("deleting %T %s: %v", o, o.GetName(), err)
		}
	}
}
