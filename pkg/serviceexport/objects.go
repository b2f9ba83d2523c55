package serviceexport

import (
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// DesiredImport is the ServiceImport of a merged name. ips are the derived
// Service's cluster IPs (ignored for a headless import).
func DesiredImport(ns, name string, r Result, ips []string) *mcsv1beta1.ServiceImport {
	imp := &mcsv1beta1.ServiceImport{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: ImportLabels(name),
			Annotations: map[string]string{AddressTypesAnnotation: addressTypes(r)}},
		Spec: mcsv1beta1.ServiceImportSpec{Type: r.Type, Ports: r.Ports},
	}
	if r.Type == mcsv1beta1.ClusterSetIP {
		imp.Annotations[DerivedServiceAnnotation] = DerivedServiceName(name)
		imp.Spec.IPs = ips
		imp.Spec.SessionAffinity = r.SessionAffinity
		imp.Spec.SessionAffinityConfig = r.SessionAffinityConfig
	}
	for _, c := range r.Clusters() {
		imp.Status.Clusters = append(imp.Status.Clusters, mcsv1beta1.ClusterStatus{Cluster: c})
	}
	return imp
}

func addressTypes(r Result) string {
	parts := make([]string, 0, len(r.Exports))
	for _, e := range r.Exports {
		parts = append(parts, e.Cluster+"="+string(e.Addresses.Type))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// DerivedService is the selector-less Service whose ClusterIP is the
// cluster-set IP of a ClusterSetIP import; the imported EndpointSlices
// carry its name in kubernetes.io/service-name, so the member's service
// proxy routes the IP to them.
func DerivedService(ns, name string, r Result) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: DerivedServiceName(name), Labels: ImportLabels(name)},
		Spec: corev1.ServiceSpec{
			Type:                  corev1.ServiceTypeClusterIP,
			SessionAffinity:       r.SessionAffinity,
			SessionAffinityConfig: r.SessionAffinityConfig,
		},
	}
	for _, p := range r.Ports {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: p.Name, Protocol: p.Protocol, Port: p.Port,
			TargetPort: intstr.FromInt32(p.Port), AppProtocol: p.AppProtocol})
	}
	return svc
}

// DesiredSlices are the imported EndpointSlices of a merged name: per
// exporting cluster, its endpoints (100 a slice, at least one slice even
// when it has none, which records its export) on the ports of the import
// it serves. owners are set as the slices' owner references.
func DesiredSlices(ns, name string, r Result, owners []metav1.OwnerReference) []*discoveryv1.EndpointSlice {
	derived := ""
	if r.Type == mcsv1beta1.ClusterSetIP {
		derived = DerivedServiceName(name)
	}
	var out []*discoveryv1.EndpointSlice
	for _, e := range r.Exports {
		ports := slicePorts(r.Ports, e)
		annotations := map[string]string{AddressTypeAnnotation: string(e.Addresses.Type), SourceExportAnnotation: encodeSource(e)}
		eps := e.Addresses.Endpoints
		for i := 0; i == 0 || len(eps) > 0; i++ {
			n := min(len(eps), maxEndpointsPerSlice)
			s := &discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: SliceName(name, e.Cluster, i), Labels: SliceLabels(name, e.Cluster, derived),
					Annotations: maps.Clone(annotations), OwnerReferences: owners},
				AddressType: discoveryv1.AddressTypeIPv4,
				Ports:       ports,
			}
			for _, ep := range eps[:n] {
				s.Endpoints = append(s.Endpoints, endpoint(ep))
			}
			eps = eps[n:]
			out = append(out, s)
		}
	}
	return out
}

// slicePorts are the import's ports that cluster e serves (same name and
// protocol), on the port its addresses listen on.
func slicePorts(ports []mcsv1beta1.ServicePort, e Export) []discoveryv1.EndpointPort {
	var out []discoveryv1.EndpointPort
	for _, ip := range ports {
		for _, p := range e.Ports {
			if p.Name != ip.Name || p.Protocol != ip.Protocol {
				continue
			}
			if n, ok := e.Addresses.Ports[p.Name]; ok && n > 0 {
				out = append(out, discoveryv1.EndpointPort{Name: ptr.To(ip.Name), Protocol: ptr.To(ip.Protocol), Port: ptr.To(n), AppProtocol: ip.AppProtocol})
			}
		}
	}
	return out
}

func endpoint(e Endpoint) discoveryv1.Endpoint {
	out := discoveryv1.Endpoint{
		Addresses:  []string{e.Address},
		Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(e.Ready), Serving: ptr.To(e.Ready), Terminating: ptr.To(false)},
	}
	if e.Hostname != "" {
		out.Hostname = ptr.To(e.Hostname)
	}
	if e.Zone != "" {
		out.Zone = ptr.To(e.Zone)
	}
	return out
}

// ImportOwner is the owner reference imported EndpointSlices carry to their ServiceImport.
func ImportOwner(imp *mcsv1beta1.ServiceImport) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: mcsv1beta1.GroupVersion.String(), Kind: "ServiceImport", Name: imp.Name, UID: imp.UID}}
}
