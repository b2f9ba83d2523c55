package awsemu

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// protocolNames maps IANA numbers EC2 accepts to the names it reports.
var protocolNames = map[string]string{"6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6", "all": "-1"}

// hasPorts reports whether rules of the protocol carry a port range (or an
// ICMP type and code).
func hasPorts(protocol string) bool {
	switch protocol {
	case "tcp", "udp", "icmp", "icmpv6":
		return true
	}
	return false
}

// parsePermissions reads IpPermissions.N into one rule per peer.
func (s *Server) parsePermissions(reg *region, params url.Values, groupVPC string) ([]rule, *apiError) {
	var out []rule
	perms := members(params, "IpPermissions")
	if len(perms) == 0 {
		return nil, errMissingParameter("IpPermissions")
	}
	for _, p := range perms {
		base, aerr := parseProtocolAndPorts(p)
		if aerr != nil {
			return nil, aerr
		}
		n := len(out)
		for _, m := range members(p, "IpRanges") {
			cidr, err := netip.ParsePrefix(m.Get("CidrIp"))
			if err != nil || !cidr.Addr().Is4() {
				return nil, errInvalidParameterValue("CIDR block %s is malformed", m.Get("CidrIp"))
			}
			r := base
			r.cidr, r.description = cidr.Masked().String(), m.Get("Description")
			out = append(out, r)
		}
		for _, m := range members(p, "Ipv6Ranges") {
			cidr, err := netip.ParsePrefix(m.Get("CidrIpv6"))
			if err != nil || !cidr.Addr().Is6() {
				return nil, errInvalidParameterValue("CIDR block %s is malformed", m.Get("CidrIpv6"))
			}
			r := base
			r.cidrV6, r.description = cidr.Masked().String(), m.Get("Description")
			out = append(out, r)
		}
		for _, m := range members(p, "Groups") {
			g := reg.groups[m.Get("GroupId")]
			if g == nil || g.vpcID != groupVPC {
				return nil, errClient("InvalidGroup.NotFound", "The security group '%s' does not exist in VPC '%s'", m.Get("GroupId"), groupVPC)
			}
			r := base
			r.groupID, r.description = g.id, m.Get("Description")
			out = append(out, r)
		}
		if len(out) == n {
			return nil, errMissingParameter("IpPermissions.IpRanges, IpPermissions.Ipv6Ranges or IpPermissions.Groups")
		}
	}
	return out, nil
}

func parseProtocolAndPorts(p url.Values) (rule, *apiError) {
	proto := strings.ToLower(p.Get("IpProtocol"))
	if n, ok := protocolNames[proto]; ok {
		proto = n
	}
	if proto == "" {
		return rule{}, errMissingParameter("IpPermissions.IpProtocol")
	}
	if n, err := strconv.Atoi(proto); proto != "-1" && !hasPorts(proto) && (err != nil || n < 0 || n > 255) {
		return rule{}, errInvalidParameterValue("Invalid value '%s' for IP protocol. Unknown protocol.", proto)
	}
	r := rule{protocol: proto}
	if !hasPorts(proto) {
		return r, nil
	}
	lo, hi := int32(0), int32(65535)
	if strings.HasPrefix(proto, "icmp") {
		lo, hi = -1, 255
	}
	from, err1 := strconv.ParseInt(p.Get("FromPort"), 10, 32)
	to, err2 := strconv.ParseInt(p.Get("ToPort"), 10, 32)
	if err1 != nil || err2 != nil {
		return r, errInvalidParameterValue("Invalid value for portRange. Must specify both from and to ports with TCP/UDP/ICMP.")
	}
	r.fromPort, r.toPort = int32(from), int32(to)
	if r.fromPort < lo || r.toPort > hi || (!strings.HasPrefix(proto, "icmp") && r.fromPort > r.toPort) {
		return r, errInvalidParameterValue("Invalid value for portRange: from %d to %d", r.fromPort, r.toPort)
	}
	return r, nil
}

// describe renders a rule as EC2 does in its error messages.
func (r rule) describe() string {
	peer := r.cidr + r.cidrV6 + r.groupID
	return fmt.Sprintf("peer: %s, %s, from port: %d, to port: %d, ALLOW", peer, strings.ToUpper(r.protocol), r.fromPort, r.toPort)
}

// permissionsXML groups rules with the same protocol and ports into one
// IpPermission, in the order the rules were added.
func (s *Server) permissionsXML(rules []rule) []ipPermissionXML {
	var out []ipPermissionXML
	index := map[[3]string]int{}
	for _, r := range rules {
		k := [3]string{r.protocol, strconv.Itoa(int(r.fromPort)), strconv.Itoa(int(r.toPort))}
		i, ok := index[k]
		if !ok {
			p := ipPermissionXML{IPProtocol: r.protocol}
			if hasPorts(r.protocol) {
				from, to := r.fromPort, r.toPort
				p.FromPort, p.ToPort = &from, &to
			}
			i = len(out)
			index[k] = i
			out = append(out, p)
		}
		p := &out[i]
		switch {
		case r.cidr != "":
			p.IPRanges = append(p.IPRanges, ipRangeXML{CidrIP: r.cidr, Description: r.description})
		case r.cidrV6 != "":
			p.IPv6Ranges = append(p.IPv6Ranges, ipv6RangeXML{CidrIPv6: r.cidrV6, Description: r.description})
		default:
			p.Groups = append(p.Groups, groupPairXML{UserID: s.opts.OwnerID, GroupID: r.groupID, Description: r.description})
		}
	}
	return out
}
