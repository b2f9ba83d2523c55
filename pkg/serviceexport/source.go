package serviceexport

import (
	"encoding/json"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// sourceExport is what SourceExportAnnotation records of an export: every
// property the merge reads but the endpoints, which the slices hold.
type sourceExport struct {
	Created               metav1.Time                         `json:"created"`
	ServiceType           corev1.ServiceType                  `json:"serviceType"`
	Headless              bool                                `json:"headless,omitempty"`
	Ports                 []mcsv1beta1.ServicePort            `json:"ports,omitempty"`
	SessionAffinity       corev1.ServiceAffinity              `json:"sessionAffinity,omitempty"`
	SessionAffinityConfig *corev1.SessionAffinityConfig       `json:"sessionAffinityConfig,omitempty"`
	InternalTrafficPolicy corev1.ServiceInternalTrafficPolicy `json:"internalTrafficPolicy,omitempty"`
	TrafficDistribution   string                              `json:"trafficDistribution,omitempty"`
	IPFamilies            []corev1.IPFamily                   `json:"ipFamilies,omitempty"`
	ExportedLabels        map[string]string                   `json:"exportedLabels,omitempty"`
	ExportedAnnotations   map[string]string                   `json:"exportedAnnotations,omitempty"`
	Region                string                              `json:"region,omitempty"`
	Zones                 []string                            `json:"zones,omitempty"`
	AddressType           AddressType                         `json:"addressType"`
	Network               string                              `json:"network,omitempty"`
}

func encodeSource(e Export) string {
	raw, err := json.Marshal(sourceExport{Created: e.Created, ServiceType: e.ServiceType, Headless: e.Headless, Ports: e.Ports,
		SessionAffinity: e.SessionAffinity, SessionAffinityConfig: e.SessionAffinityConfig,
		InternalTrafficPolicy: e.InternalTrafficPolicy, TrafficDistribution: e.TrafficDistribution, IPFamilies: e.IPFamilies,
		ExportedLabels: e.ExportedLabels, ExportedAnnotations: e.ExportedAnnotations, Region: e.Region, Zones: e.Zones, AddressType: e.Addresses.Type,
		Network: e.Network})
	if err != nil { // cannot happen: plain data
		return ""
	}
	return string(raw)
}

// ExportFromSlices rebuilds a cluster's export from the EndpointSlices
// imported from it, for a leader that cannot read that cluster now but must
// keep (not withdraw) what it exported. It returns false when the slices do
// not record an export.
func ExportFromSlices(cluster string, slices []discoveryv1.EndpointSlice) (Export, bool) {
	var src *sourceExport
	for i := range slices {
		s := &sourceExport{}
		if json.Unmarshal([]byte(slices[i].Annotations[federationv1alpha1.AnnotationSourceExport]), s) == nil {
			src = s
			break
		}
	}
	if src == nil {
		return Export{}, false
	}
	e := Export{Cluster: cluster, Created: src.Created, ServiceType: src.ServiceType, Headless: src.Headless, Ports: src.Ports,
		SessionAffinity: src.SessionAffinity, SessionAffinityConfig: src.SessionAffinityConfig,
		InternalTrafficPolicy: src.InternalTrafficPolicy, TrafficDistribution: src.TrafficDistribution, IPFamilies: src.IPFamilies,
		ExportedLabels: src.ExportedLabels, ExportedAnnotations: src.ExportedAnnotations, Region: src.Region, Zones: src.Zones,
		Network: src.Network, Addresses: Addresses{Type: src.AddressType, Ports: map[string]int32{}, Note: "kept from the last import while " + cluster + " cannot be read"}}
	if e.InternalTrafficPolicy == "" { // recorded before the policy was
		e.InternalTrafficPolicy = corev1.ServiceInternalTrafficPolicyCluster
	}
	sort.Slice(slices, func(i, j int) bool { return slices[i].Name < slices[j].Name })
	for _, s := range slices {
		for _, p := range s.Ports {
			if p.Port != nil {
				e.Addresses.Ports[deref(p.Name)] = *p.Port
			}
		}
		for _, ep := range s.Endpoints {
			if len(ep.Addresses) == 0 {
				continue
			}
			e.Addresses.Endpoints = append(e.Addresses.Endpoints, Endpoint{Address: ep.Addresses[0], Ready: ep.Conditions.Ready == nil || *ep.Conditions.Ready,
				Hostname: deref(ep.Hostname), Zone: deref(ep.Zone), NodeName: deref(ep.NodeName)})
		}
	}
	e.Addresses.Endpoints = dedupe(e.Addresses.Endpoints)
	if len(e.IPFamilies) == 0 { // recorded before the families were
		e.IPFamilies = e.Addresses.Families()
	}
	return e, true
}
