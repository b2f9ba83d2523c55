package serviceexport

import (
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport/locality"
)

// Importer is the member imported EndpointSlices are written into.
type Importer struct {
	// Cluster is its cluster ID.
	Cluster string
	// Zones maps the topology.kubernetes.io/zone of each of its nodes to
	// that node's topology.kubernetes.io/region: the topology hints of a
	// PreferClose import are computed for these zones.
	Zones map[string]string
}

// PreferClose is the traffic distribution for which imported slices carry
// topology hints (see package locality).
const PreferClose = corev1.ServiceTrafficDistributionPreferClose

// maxZoneHints is the most zones an endpoint's hints may name (API validation).
const maxZoneHints = 8

// DesiredSlices are the imported EndpointSlices of a merged name in the
// member imp: per exporting cluster and address family, its endpoints
// (100 a slice, and at least one slice per cluster even when it has no
// endpoint, which records its export) on the ports of the import it
// serves. owners are set as the slices' owner references. When the import's
// traffic distribution is PreferClose, ready endpoints carry the topology
// hints of package locality for the importer's zones.
func DesiredSlices(ns, name string, r Result, owners []metav1.OwnerReference, imp Importer) []*discoveryv1.EndpointSlice {
	derived := ""
	if r.Type == mcsv1beta1.ClusterSetIP {
		derived = DerivedServiceName(name)
	}
	hints := zoneHints(r, imp)
	var out []*discoveryv1.EndpointSlice
	for _, e := range r.Exports {
		ports := slicePorts(r.Ports, e)
		annotations := map[string]string{federationv1alpha1.AnnotationAddressType: string(e.Addresses.Type), federationv1alpha1.AnnotationSourceExport: encodeSource(e)}
		if e.Region != "" {
			annotations[federationv1alpha1.AnnotationSourceRegion] = e.Region
		}
		if len(e.Zones) > 0 {
			annotations[federationv1alpha1.AnnotationSourceZones] = strings.Join(e.Zones, ",")
		}
		if e.Network != "" {
			annotations[federationv1alpha1.AnnotationNetwork] = e.Network
		}
		for _, group := range byFamily(e) {
			eps := group.endpoints
			for i := 0; i == 0 || len(eps) > 0; i++ {
				n := min(len(eps), maxEndpointsPerSlice)
				s := &discoveryv1.EndpointSlice{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: SliceNameFor(name, e.Cluster, group.addressType, i),
						Labels: SliceLabels(name, e.Cluster, derived), Annotations: maps.Clone(annotations), OwnerReferences: owners},
					AddressType: group.addressType,
					Ports:       ports,
				}
				for _, ep := range eps[:n] {
					s.Endpoints = append(s.Endpoints, endpoint(ep, e.Cluster == imp.Cluster, hints[hintKey{e.Cluster, ep.Address}]))
				}
				eps = eps[n:]
				out = append(out, s)
			}
		}
	}
	return out
}

// familyGroup is the endpoints of an export of one address type.
type familyGroup struct {
	addressType discoveryv1.AddressType
	endpoints   []Endpoint
}

// byFamily splits an export's endpoints by family, IPv4 first; an export
// without endpoints gets one empty group of its first family (IPv4 when
// it serves none), which records it.
func byFamily(e Export) []familyGroup {
	var out []familyGroup
	for _, f := range families {
		g := familyGroup{addressType: AddressTypeOf(f)}
		for _, ep := range e.Addresses.Endpoints {
			if Family(ep.Address) == f {
				g.endpoints = append(g.endpoints, ep)
			}
		}
		if len(g.endpoints) > 0 {
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		f := corev1.IPv4Protocol
		if len(e.IPFamilies) > 0 {
			f = e.IPFamilies[0]
		}
		out = append(out, familyGroup{addressType: AddressTypeOf(f)})
	}
	return out
}

type hintKey struct{ cluster, address string }

// zoneHints are the zones each ready endpoint is hinted for, per family,
// when the import prefers close endpoints; nil otherwise.
func zoneHints(r Result, imp Importer) map[hintKey][]string {
	if r.TrafficDistribution != PreferClose || len(imp.Zones) == 0 {
		return nil
	}
	out := map[hintKey][]string{}
	for _, f := range families {
		var keys []hintKey
		var places []locality.Place
		for _, e := range r.Exports {
			for _, ep := range e.Addresses.Endpoints {
				if ep.Ready && Family(ep.Address) == f {
					keys = append(keys, hintKey{e.Cluster, ep.Address})
					places = append(places, locality.Place{Cluster: e.Cluster, Region: e.Region, Zone: ep.Zone})
				}
			}
		}
		for i, zones := range locality.Hints(imp.Cluster, imp.Zones, places) {
			out[keys[i]] = zones[:min(len(zones), maxZoneHints)]
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

// endpoint is the imported endpoint of e; local tells whether the slice is
// written into e's own cluster (where its node name means something).
func endpoint(e Endpoint, local bool, zones []string) discoveryv1.Endpoint {
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
	if local && e.NodeName != "" {
		out.NodeName = ptr.To(e.NodeName)
	}
	if len(zones) > 0 {
		out.Hints = &discoveryv1.EndpointHints{}
		for _, z := range zones {
			out.Hints.ForZones = append(out.Hints.ForZones, discoveryv1.ForZone{Name: z})
		}
	}
	return out
}
