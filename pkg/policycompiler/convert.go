package policycompiler

import (
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Convert returns what Upsert takes for an API object: the object itself
// for the Antrea types (the compiler keeps references to them, as an
// informer's cache does; neither modifies them), slim copies for Pods and
// Namespaces, nil for anything else.
func Convert(obj any) any {
	switch o := obj.(type) {
	case *antreav1alpha2.ExternalEntity, *antreav1beta1.NetworkPolicy, *antreav1beta1.ClusterNetworkPolicy,
		*antreav1beta1.Group, *antreav1beta1.ClusterGroup, *antreav1beta1.Tier:
		return o
	case *corev1.Namespace:
		return &Namespace{Name: o.Name, Labels: o.Labels}
	case *corev1.Pod:
		return pod(o)
	}
	return nil
}

// pod is the part of a Pod that rules can match as a peer: its labels,
// ServiceAccount, IPs and named container ports.
func pod(p *corev1.Pod) *Pod {
	out := &Pod{Namespace: p.Namespace, Name: p.Name, Labels: p.Labels, ServiceAccount: p.Spec.ServiceAccountName}
	for _, ip := range p.Status.PodIPs {
		if a, err := netip.ParseAddr(ip.IP); err == nil {
			out.IPs = append(out.IPs, a)
		}
	}
	if len(out.IPs) == 0 && p.Status.PodIP != "" {
		if a, err := netip.ParseAddr(p.Status.PodIP); err == nil {
			out.IPs = append(out.IPs, a)
		}
	}
	for _, c := range p.Spec.Containers {
		for _, port := range c.Ports {
			if port.Name == "" {
				continue
			}
			protocol := policyrules.Protocol(strings.ToUpper(string(port.Protocol)))
			if protocol == "" {
				protocol = policyrules.ProtocolTCP
			}
			out.Ports = append(out.Ports, NamedPort{Name: port.Name, Protocol: protocol, Port: port.ContainerPort})
		}
	}
	return out
}
