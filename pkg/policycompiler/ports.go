package policycompiler

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// portSpec is a Port of a rule as written: Name is set for a named port,
// whose number depends on the workload that exposes it.
type portSpec struct {
	policyrules.Port
	Name string
}

// anyPortOf returns a Port that matches every port of protocol.
func anyPortOf(protocol policyrules.Protocol) policyrules.Port {
	return policyrules.Port{Protocol: protocol, ICMPType: policyrules.AnyType, ICMPCode: policyrules.AnyType, IGMPType: policyrules.AnyType}
}

// convertPorts turns a rule's ports and protocols into portSpecs. Both empty
// means every kind of traffic: the result is nil.
func convertPorts(ports []antreav1beta1.NetworkPolicyPort, protocols []antreav1beta1.NetworkPolicyProtocol) ([]portSpec, error) {
	var out []portSpec
	for _, p := range ports {
		spec, err := convertPort(p)
		if err != nil {
			return nil, err
		}
		out = append(out, spec)
	}
	for _, p := range protocols {
		spec, err := convertProtocol(p)
		if err != nil {
			return nil, err
		}
		out = append(out, spec)
	}
	return out, nil
}

func convertPort(p antreav1beta1.NetworkPolicyPort) (portSpec, error) {
	protocol := policyrules.ProtocolTCP
	if p.Protocol != nil && *p.Protocol != "" {
		protocol = policyrules.Protocol(strings.ToUpper(string(*p.Protocol)))
	}
	if protocol != policyrules.ProtocolTCP && protocol != policyrules.ProtocolUDP && protocol != policyrules.ProtocolSCTP {
		return portSpec{}, fmt.Errorf("protocol %q is not TCP, UDP or SCTP", protocol)
	}
	spec := portSpec{Port: anyPortOf(protocol)}
	if err := setSourcePorts(&spec.Port, p.SourcePort, p.SourceEndPort); err != nil {
		return portSpec{}, err
	}
	if p.Port == nil {
		if p.EndPort != nil {
			return portSpec{}, fmt.Errorf("endPort %d needs a numerical port", *p.EndPort)
		}
		return spec, nil
	}
	if p.Port.Type == intstr.String {
		return namedPort(spec, p)
	}
	first, last := p.Port.IntVal, p.Port.IntVal
	if p.EndPort != nil {
		last = *p.EndPort
	}
	if err := checkPortRange("port", first, last); err != nil {
		return portSpec{}, err
	}
	spec.Port.Port, spec.EndPort = first, last
	return spec, nil
}

func namedPort(spec portSpec, p antreav1beta1.NetworkPolicyPort) (portSpec, error) {
	if p.EndPort != nil {
		return portSpec{}, fmt.Errorf("endPort %d needs a numerical port, not %q", *p.EndPort, p.Port.StrVal)
	}
	if number, err := strconv.Atoi(p.Port.StrVal); err == nil {
		// A quoted number is still a number.
		if err := checkPortRange("port", int32(number), int32(number)); err != nil {
			return portSpec{}, err
		}
		spec.Port.Port, spec.EndPort = int32(number), int32(number)
		return spec, nil
	}
	if p.Port.StrVal == "" {
		return portSpec{}, fmt.Errorf("port name is empty")
	}
	spec.Name = p.Port.StrVal
	return spec, nil
}

func setSourcePorts(port *policyrules.Port, first, last *int32) error {
	if first == nil {
		if last != nil {
			return fmt.Errorf("sourceEndPort %d needs sourcePort", *last)
		}
		return nil
	}
	end := *first
	if last != nil {
		end = *last
	}
	if err := checkPortRange("sourcePort", *first, end); err != nil {
		return err
	}
	port.SourcePort, port.SourceEndPort = *first, end
	return nil
}

func checkPortRange(field string, first, last int32) error {
	if first < 1 || first > 65535 || last < first || last > 65535 {
		return fmt.Errorf("%s range %d-%d is not within 1-65535", field, first, last)
	}
	return nil
}

func convertProtocol(p antreav1beta1.NetworkPolicyProtocol) (portSpec, error) {
	switch {
	case p.ICMP != nil:
		port := anyPortOf(policyrules.ProtocolICMP)
		if t := p.ICMP.ICMPType; t != nil {
			port.ICMPType = *t
		}
		if c := p.ICMP.ICMPCode; c != nil {
			port.ICMPCode = *c
		}
		if port.ICMPType > 255 || port.ICMPCode > 255 || port.ICMPType < policyrules.AnyType || port.ICMPCode < policyrules.AnyType {
			return portSpec{}, fmt.Errorf("icmp type %d or code %d is not within 0-255", port.ICMPType, port.ICMPCode)
		}
		return portSpec{Port: port}, nil
	case p.IGMP != nil:
		port := anyPortOf(policyrules.ProtocolIGMP)
		if t := p.IGMP.IGMPType; t != nil {
			port.IGMPType = *t
		}
		if p.IGMP.GroupAddress != "" {
			group, err := netip.ParseAddr(p.IGMP.GroupAddress)
			if err != nil || !group.IsMulticast() {
				return portSpec{}, fmt.Errorf("igmp groupAddress %q is not a multicast address", p.IGMP.GroupAddress)
			}
			port.GroupAddress = group
		}
		return portSpec{Port: port}, nil
	}
	return portSpec{}, fmt.Errorf("a protocols entry sets neither icmp nor igmp")
}

func hasNamedPort(specs []portSpec) bool {
	for _, s := range specs {
		if s.Name != "" {
			return true
		}
	}
	return false
}

// resolvePorts returns the Ports of specs for a workload that exposes
// exposed: a named port becomes the number the workload gives that name for
// the same protocol, and is left out when it has none, as Antrea's agent
// does. The result is not nil, so that a rule whose named ports all fail to
// resolve matches no port rather than every port. exposed nil resolves no
// name (an ipBlock peer has no named ports).
func resolvePorts(specs []portSpec, exposed []NamedPort) []policyrules.Port {
	out := make([]policyrules.Port, 0, len(specs))
	for _, s := range specs {
		if s.Name == "" {
			out = append(out, s.Port)
			continue
		}
		for _, np := range exposed {
			if np.Name == s.Name && np.Protocol == s.Protocol {
				port := s.Port
				port.Port, port.EndPort = np.Port, np.Port
				out = append(out, port)
				break
			}
		}
	}
	return out
}

// portsKey renders ports as a string that is equal for equal port lists.
func portsKey(ports []policyrules.Port) string {
	var b strings.Builder
	for _, p := range ports {
		b.WriteString(formatPort(p))
		b.WriteByte(',')
	}
	return b.String()
}

// formatPort renders a Port compactly, such as "TCP/80-90", "UDP/any",
// "ICMP/type=8,code=any" or "TCP/443<-1024-2048" (with source ports).
func formatPort(p policyrules.Port) string {
	var b strings.Builder
	b.WriteString(string(p.Protocol))
	b.WriteByte('/')
	switch p.Protocol {
	case policyrules.ProtocolICMP:
		fmt.Fprintf(&b, "type=%s,code=%s", formatType(p.ICMPType), formatType(p.ICMPCode))
	case policyrules.ProtocolIGMP:
		fmt.Fprintf(&b, "type=%s", formatType(p.IGMPType))
		if p.GroupAddress.IsValid() {
			fmt.Fprintf(&b, ",group=%s", p.GroupAddress)
		}
	default:
		b.WriteString(formatRange(p.Port, p.EndPort))
		if p.SourcePort != 0 {
			b.WriteString("<-" + formatRange(p.SourcePort, p.SourceEndPort))
		}
	}
	return b.String()
}

func formatRange(first, last int32) string {
	if first == 0 {
		return "any"
	}
	if first == last {
		return strconv.Itoa(int(first))
	}
	return fmt.Sprintf("%d-%d", first, last)
}

func formatType(t int32) string {
	if t == policyrules.AnyType {
		return "any"
	}
	return strconv.Itoa(int(t))
}
