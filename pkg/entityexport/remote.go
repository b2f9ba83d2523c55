package entityexport

import (
	"encoding/json"
	"maps"
	"net"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Limits of the RemoteEntity API that an ExternalEntity does not have.
const (
	maxEndpointName = 253
	maxPortName     = 15
)

// Source is the member whose exports are imported.
type Source struct {
	// ClusterID of the member.
	ClusterID string
	// Labels of its registry entry (its MemberCluster).
	Labels map[string]string
}

// Desired returns the RemoteEntities that the other members import of what
// src exports: one per ExternalEntity selected by its exports (see
// Exported), in the entity's Namespace, sorted by Namespace and name.
func Desired(src Source, exports []federationv1alpha1.EntityExport, entities []antreav1alpha2.ExternalEntity) []*federationv1alpha1.RemoteEntity {
	exported := Exported(exports, entities)
	out := make([]*federationv1alpha1.RemoteEntity, 0, len(exported))
	for i := range exported {
		out = append(out, DesiredEntity(src, &exported[i]))
	}
	return out
}

// DesiredEntity is the RemoteEntity of one ExternalEntity exported by src.
func DesiredEntity(src Source, e *antreav1alpha2.ExternalEntity) *federationv1alpha1.RemoteEntity {
	return &federationv1alpha1.RemoteEntity{
		ObjectMeta: metav1.ObjectMeta{Name: RemoteName(src.ClusterID, e.Name), Namespace: e.Namespace, Labels: RemoteLabels(src, e.Labels)},
		Spec: federationv1alpha1.RemoteEntitySpec{
			SourceCluster: src.ClusterID,
			SourceName:    e.Name,
			Kind:          e.Labels[cloudv1alpha1.LabelEntityKind],
			Endpoints:     remoteEndpoints(e.Spec.Endpoints),
			Ports:         remotePorts(e.Spec.Ports),
			Network:       remoteNetwork(e.Labels[federationv1alpha1.LabelNetwork]),
			Addresses:     remoteAddresses(e.Annotations[federationv1alpha1.AnnotationAddresses]),
		},
	}
}

// Limits of the RemoteEntity's network fields.
const (
	maxNetworkName = 63
	maxAddresses   = 128
	maxVia         = 1024
)

// remoteNetwork is the entity's network, if the API can hold its name.
func remoteNetwork(name string) string {
	if len(name) > maxNetworkName {
		return ""
	}
	return name
}

// remoteAddresses are the classified addresses of an entity's annotation
// (federationv1alpha1.AnnotationAddresses). An annotation that does not
// parse classifies nothing (the importing members then use only the
// endpoints outside the private ranges); an entry that the API would
// refuse is left out.
func remoteAddresses(annotation string) []federationv1alpha1.EntityAddress {
	if annotation == "" {
		return nil
	}
	var in []federationv1alpha1.EntityAddress
	if err := json.Unmarshal([]byte(annotation), &in); err != nil {
		return nil
	}
	out := make([]federationv1alpha1.EntityAddress, 0, len(in))
	for _, a := range in {
		switch {
		case len(out) == maxAddresses, net.ParseIP(a.IP) == nil, len(a.Network) > maxNetworkName, len(a.Via) > maxVia:
			continue
		case a.Kind != federationv1alpha1.AddressPrivate && a.Kind != federationv1alpha1.AddressPublic && a.Kind != federationv1alpha1.AddressEgress:
			continue
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// remoteEndpoints keeps the endpoints with an IP address; a name longer
// than the API allows is left out.
func remoteEndpoints(eps []antreav1alpha2.Endpoint) []federationv1alpha1.RemoteEndpoint {
	var out []federationv1alpha1.RemoteEndpoint
	for _, e := range eps {
		if net.ParseIP(e.IP) == nil {
			continue
		}
		re := federationv1alpha1.RemoteEndpoint{IP: e.IP}
		if len(e.Name) <= maxEndpointName {
			re.Name = e.Name
		}
		out = append(out, re)
	}
	return out
}

// remotePorts keeps the ports with a number; a name longer than the API
// allows is left out.
func remotePorts(ports []antreav1alpha2.NamedPort) []federationv1alpha1.RemotePort {
	var out []federationv1alpha1.RemotePort
	for _, p := range ports {
		if p.Port < 1 || p.Port > 65535 {
			continue
		}
		rp := federationv1alpha1.RemotePort{Protocol: string(p.Protocol), Port: p.Port}
		if len(p.Name) <= maxPortName {
			rp.Name = p.Name
		}
		out = append(out, rp)
	}
	return out
}

// Matches tells whether a RemoteEntity read from a member already is what
// want asks for: the same labels and spec. Annotations (the leader term)
// are not compared: a new leader rewrites nothing that is right.
func Matches(have, want *federationv1alpha1.RemoteEntity) bool {
	return have.Name == want.Name && have.Namespace == want.Namespace &&
		maps.Equal(have.Labels, want.Labels) && equality.Semantic.DeepEqual(have.Spec, want.Spec)
}
