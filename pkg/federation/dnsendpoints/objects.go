package dnsendpoints

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/externaldns/records"
)

// Name is the name of the DNSEndpoint of Service key: <name>.<namespace>
// (a Service name and a namespace are DNS labels: the pair is unique).
func Name(key types.NamespacedName) string { return key.Name + "." + key.Namespace }

// Desired is the DNSEndpoint holding the records of the Service key
// decided from exporters, in federationv1alpha1.SystemNamespace; nil when there is no record
// to publish (then no DNSEndpoint should exist).
func Desired(key types.NamespacedName, result records.Result, exporters []records.Exporter) *externaldnsv1alpha1.DNSEndpoint {
	if len(result.Endpoints) == 0 {
		return nil
	}
	kept := slices.Clone(exporters)
	slices.SortFunc(kept, func(a, b records.Exporter) int { return strings.Compare(a.ClusterID, b.ClusterID) })
	data, err := json.Marshal(kept)
	if err != nil {
		panic(fmt.Sprintf("exporters cannot be encoded: %v", err)) // plain data: cannot happen
	}
	ep := &externaldnsv1alpha1.DNSEndpoint{
		ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: Name(key),
			Labels:      map[string]string{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation, federationv1alpha1.LabelServiceNamespace: key.Namespace, federationv1alpha1.LabelServiceName: key.Name},
			Annotations: map[string]string{federationv1alpha1.AnnotationExporters: string(data)}},
		Spec: result.Spec(),
	}
	if len(result.Notes) > 0 {
		lines := make([]string, 0, len(result.Notes))
		for _, n := range result.Notes {
			lines = append(lines, n.ClusterID+": "+n.Message)
		}
		ep.Annotations[federationv1alpha1.AnnotationNotes] = strings.Join(lines, "\n")
	}
	return ep
}

// Ours tells whether a DNSEndpoint was written by the federation: only
// those are updated or deleted.
func Ours(ep *externaldnsv1alpha1.DNSEndpoint) bool {
	return ep != nil && ep.Labels[federationv1alpha1.LabelManagedBy] == federationv1alpha1.ManagedByFederation
}

// KeyOf is the Service one of our DNSEndpoints is for.
func KeyOf(ep *externaldnsv1alpha1.DNSEndpoint) (types.NamespacedName, bool) {
	k := types.NamespacedName{Namespace: ep.Labels[federationv1alpha1.LabelServiceNamespace], Name: ep.Labels[federationv1alpha1.LabelServiceName]}
	return k, k.Namespace != "" && k.Name != "" && Name(k) == ep.Name
}

// Same tells whether stored already holds what want says: the records,
// our labels and annotations (other labels and annotations, the leader's
// term among them, do not count).
func Same(stored, want *externaldnsv1alpha1.DNSEndpoint) bool {
	if stored == nil || want == nil {
		return stored == want
	}
	for k, v := range want.Labels {
		if stored.Labels[k] != v {
			return false
		}
	}
	for _, k := range []string{federationv1alpha1.AnnotationExporters, federationv1alpha1.AnnotationNotes} {
		if stored.Annotations[k] != want.Annotations[k] {
			return false
		}
	}
	return reflect.DeepEqual(normal(stored.Spec), normal(want.Spec))
}

// normal drops the differences JSON round trips make (nil or empty).
func normal(s externaldnsv1alpha1.DNSEndpointSpec) externaldnsv1alpha1.DNSEndpointSpec {
	out := externaldnsv1alpha1.DNSEndpointSpec{}
	for _, e := range s.Endpoints {
		e = e.DeepCopy()
		if len(e.Labels) == 0 {
			e.Labels = nil
		}
		if len(e.ProviderSpecific) == 0 {
			e.ProviderSpecific = nil
		}
		if len(e.Targets) == 0 {
			e.Targets = nil
		}
		out.Endpoints = append(out.Endpoints, e)
	}
	return out
}

// Updated is stored carrying want's records, labels and annotations, the
// rest of stored (its other labels and annotations) kept.
func Updated(stored, want *externaldnsv1alpha1.DNSEndpoint) *externaldnsv1alpha1.DNSEndpoint {
	out := stored.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	maps.Copy(out.Labels, want.Labels)
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	delete(out.Annotations, federationv1alpha1.AnnotationNotes)
	maps.Copy(out.Annotations, want.Annotations)
	out.Spec = *want.Spec.DeepCopy()
	return out
}

// KeptExporter is member's exporter as a stored DNSEndpoint of ours
// remembers it, if it does.
func KeptExporter(stored *externaldnsv1alpha1.DNSEndpoint, member string) (records.Exporter, bool) {
	if !Ours(stored) {
		return records.Exporter{}, false
	}
	var exporters []records.Exporter
	if err := json.Unmarshal([]byte(stored.Annotations[federationv1alpha1.AnnotationExporters]), &exporters); err != nil {
		return records.Exporter{}, false
	}
	for _, e := range exporters {
		if e.ClusterID == member {
			return e, true
		}
	}
	return records.Exporter{}, false
}
