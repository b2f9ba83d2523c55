package importcache

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// Converter makes the slim copies of API objects. It shares one copy of
// each source cluster ID, region and zone among all slices.
type Converter struct {
	mu      sync.Mutex
	strings map[string]string
}

// NewConverter returns a Converter.
func NewConverter() *Converter { return &Converter{strings: map[string]string{}} }

// Import converts a *mcsv1beta1.ServiceImport to its slim *Import.
func (c *Converter) Import(obj metav1.Object) (metav1.Object, error) {
	si, ok := obj.(*mcsv1beta1.ServiceImport)
	if !ok {
		return nil, fmt.Errorf("unexpected object %T, want a ServiceImport", obj)
	}
	imp := &Import{
		Namespace: si.Namespace,
		Name:      si.Name,
		Headless:  si.Spec.Type == mcsv1beta1.Headless,
		IPs:       parseAddrs(si.Spec.IPs),
		PreferClose: si.Spec.TrafficDistribution != nil &&
			*si.Spec.TrafficDistribution == serviceexport.PreferClose,
	}
	if len(si.Spec.Ports) > 0 {
		imp.Ports = make([]Port, len(si.Spec.Ports))
		for i, p := range si.Spec.Ports {
			imp.Ports[i] = Port{Name: p.Name, Protocol: protocol(p.Protocol), Port: p.Port}
		}
	}
	return imp, nil
}

// Slice converts a *discoveryv1.EndpointSlice to its slim *Slice, keeping
// only its ready endpoints (ready unset counts as ready, as the
// EndpointSlice API says consumers should treat it).
func (c *Converter) Slice(obj metav1.Object) (metav1.Object, error) {
	es, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return nil, fmt.Errorf("unexpected object %T, want an EndpointSlice", obj)
	}
	s := &Slice{
		Namespace: es.Namespace,
		Name:      es.Name,
		Service:   es.Labels[mcsv1beta1.LabelServiceName],
		Cluster:   c.intern(es.Labels[mcsv1beta1.LabelSourceCluster]),
		Region:    c.intern(es.Annotations[federationv1alpha1.AnnotationSourceRegion]),
		Zones:     c.zones(es.Annotations[federationv1alpha1.AnnotationSourceZones]),
	}
	if es.AddressType == discoveryv1.AddressTypeFQDN {
		return s, nil
	}
	for _, p := range es.Ports {
		port := Port{Protocol: string(corev1.ProtocolTCP)}
		if p.Name != nil {
			port.Name = *p.Name
		}
		if p.Protocol != nil {
			port.Protocol = protocol(*p.Protocol)
		}
		if p.Port != nil {
			port.Port = *p.Port
		}
		s.Ports = append(s.Ports, port)
	}
	for _, e := range es.Endpoints {
		if e.Conditions.Ready != nil && !*e.Conditions.Ready {
			continue
		}
		addrs := parseAddrs(e.Addresses)
		if len(addrs) == 0 {
			continue
		}
		ep := Endpoint{Addrs: addrs}
		if e.Hostname != nil {
			ep.Hostname = *e.Hostname
		}
		if e.Zone != nil {
			ep.Zone = c.intern(*e.Zone)
		}
		s.Endpoints = append(s.Endpoints, ep)
	}
	return s, nil
}

func parseAddrs(in []string) []netip.Addr {
	if len(in) == 0 {
		return nil
	}
	out := make([]netip.Addr, 0, len(in))
	for _, a := range in {
		if ip, err := netip.ParseAddr(a); err == nil {
			out = append(out, ip.Unmap())
		}
	}
	return out
}

// protocol returns the shared constant of a protocol, so that ten thousand
// ports do not each hold their own copy of "TCP".
func protocol(p corev1.Protocol) string {
	switch p {
	case corev1.ProtocolTCP, "":
		return string(corev1.ProtocolTCP)
	case corev1.ProtocolUDP:
		return string(corev1.ProtocolUDP)
	case corev1.ProtocolSCTP:
		return string(corev1.ProtocolSCTP)
	}
	return string(p)
}

// zones splits a source-zones annotation into shared copies of its zones.
func (c *Converter) zones(annotation string) []string {
	if annotation == "" {
		return nil
	}
	zones := strings.Split(annotation, ",")
	for i, z := range zones {
		zones[i] = c.intern(z)
	}
	return zones
}

// intern returns the shared copy of a cluster ID, region or zone.
func (c *Converter) intern(s string) string {
	if s == "" {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.strings[s]; ok {
		return v
	}
	if len(c.strings) < 4096 {
		c.strings[s] = s
	}
	return s
}
