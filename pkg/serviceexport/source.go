package serviceexport

import (
	"encoding/json"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// sourceExport is what SourceExportAnnotation records of an export.
type sourceExport struct {
	Created               metav1.Time                   `json:"created"`
	ServiceType           corev1.ServiceType            `json:"serviceType"`
	Headless              bool                          `json:"headless,omitempty"`
	Ports                 []mcsv1beta1.ServicePort      `json:"ports,omitempty"`
	SessionAffinity       corev1.ServiceAffinity        `json:"sessionAffinity,omitempty"`
	SessionAffinityConfig *corev1.SessionAffinityConfig `json:"sessionAffinityConfig,omitempty"`
	AddressType           AddressType                   `json:"addressType"`
}

func encodeSource(e Export) string {
	raw, err := json.Marshal(sourceExport{Created: e.Created, ServiceType: e.ServiceType, Headless: e.Headless, Ports: e.Ports,
		SessionAffinity: e.SessionAffinity, SessionAffinityConfig: e.SessionAffinityConfig, AddressType: e.Addresses.Type})
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
		if json.Unmarshal([]byte(slices[i].Annotations[SourceExportAnnotation]), s) == nil {
			src = s
			break
		}
	}
	if src == nil {
		return Export{}, false
	}
	e := Export{Cluster: cluster, Created: src.Created, ServiceType: src.ServiceType, Headless: src.Headless, Ports: src.Ports,
		SessionAffinity: src.SessionAffinity, SessionAffinityConfig: src.SessionAffinityConfig,
		Addresses: Addresses{Type: src.AddressType, Ports: map[string]int32{}, Note: "kept from the last import while " + cluster + " cannot be read"}}
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
				Hostname: deref(ep.Hostname), Zone: deref(ep.Zone)})
		}
	}
	e.Addresses.Endpoints = dedupe(e.Addresses.Endpoints)
	return e, true
}
