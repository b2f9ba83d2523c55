package fedplugin

import (
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// mcsSchemaVersion is the version of the Multicluster DNS specification
// (KEP-1645 specification.md, section 1) that dns-version.<clustersetzone>
// names.
const mcsSchemaVersion = "1.0.0"

// dnsVersionTTL is the TTL the DNS specifications give the dns-version record.
const dnsVersionTTL = 28800

// addrRR is the A or AAAA record of owner for ip.
func addrRR(owner string, ttl uint32, ip netip.Addr) dns.RR {
	if ip.Is4() {
		return &dns.A{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: ttl}, A: net.IP(ip.AsSlice())}
	}
	return &dns.AAAA{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeAAAA, Class: dns.ClassINET, Ttl: ttl}, AAAA: net.IP(ip.AsSlice())}
}

// family tells whether ip answers a query of qtype (A or AAAA); any other
// qtype takes both families (the additional section of SRV answers).
func family(qtype uint16, ip netip.Addr) bool {
	switch qtype {
	case dns.TypeA:
		return ip.Is4()
	case dns.TypeAAAA:
		return !ip.Is4()
	}
	return true
}

// addrRRs appends the records of owner for the addresses of qtype's family.
func addrRRs(rrs []dns.RR, owner string, qtype uint16, ttl uint32, ips []netip.Addr) []dns.RR {
	for _, ip := range ips {
		if family(qtype, ip) {
			rrs = append(rrs, addrRR(owner, ttl, ip))
		}
	}
	return rrs
}

// clusterAddrRRs appends the records of owner for every ready endpoint
// address of the clusters.
func clusterAddrRRs(rrs []dns.RR, owner string, qtype uint16, ttl uint32, clusters ...importcache.Cluster) []dns.RR {
	for _, c := range clusters {
		for _, sl := range c.Slices {
			for _, e := range sl.Endpoints {
				rrs = addrRRs(rrs, owner, qtype, ttl, e.Addrs)
			}
		}
	}
	return rrs
}

func srvRR(owner string, ttl uint32, port int32, target string) *dns.SRV {
	return &dns.SRV{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeSRV, Class: dns.ClassINET, Ttl: ttl},
		Port: uint16(port), Target: target} // #nosec G115 -- ports are 1-65535 by API validation
}

// portsSRV are the SRV records of owner for the ports matching n, each
// pointing at target whose addresses are ips (the glue): the records of a
// Service name reached through its cluster-set IPs. Ports of the same
// number under two protocols make one record.
func portsSRV(owner, target string, ttl uint32, ports []importcache.Port, ips []netip.Addr, n name) (answer, extra []dns.RR) {
	var seen []int32
	for _, p := range ports {
		if matchPort(p, n) && !slices.Contains(seen, p.Port) {
			seen = append(seen, p.Port)
			answer = append(answer, srvRR(owner, ttl, p.Port, target))
		}
	}
	if len(answer) > 0 {
		extra = addrRRs(nil, target, 0, ttl, ips)
	}
	weigh(answer)
	return answer, extra
}

// weigh shares a weight of 100 among SRV records of one priority, as CoreDNS does.
func weigh(rrs []dns.RR) {
	w := uint16(100 / max(len(rrs), 1))
	for _, rr := range rrs {
		if s, ok := rr.(*dns.SRV); ok {
			s.Weight = max(w, 1)
		}
	}
}

func txtRR(owner string, ttl uint32, text string) dns.RR {
	return &dns.TXT{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: ttl}, Txt: []string{text}}
}

func ptrRR(owner string, ttl uint32, target string) dns.RR {
	return &dns.PTR{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypePTR, Class: dns.ClassINET, Ttl: ttl}, Ptr: target}
}

// soaRR is the SOA record negative answers carry in their authority section.
func soaRR(zone string, ttl, serial uint32) dns.RR {
	return &dns.SOA{Hdr: dns.RR_Header{Name: zone, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: ttl},
		Ns: "ns.dns." + zone, Mbox: "hostmaster." + zone, Serial: serial,
		Refresh: 7200, Retry: 1800, Expire: 86400, Minttl: ttl}
}

// matchPort tells whether a port answers an SRV name: only named ports
// have SRV records, and _port._proto must match when given.
func matchPort(p importcache.Port, n name) bool {
	if p.Name == "" {
		return false
	}
	return (n.port == "" || strings.EqualFold(p.Name, n.port)) && (n.proto == "" || strings.EqualFold(p.Protocol, n.proto))
}

// endpointHostname is an endpoint's hostname, or the address with dashes
// when it has none: the same names the kubernetes plugin gives.
func endpointHostname(e importcache.Endpoint, ip netip.Addr) string {
	if e.Hostname != "" {
		return e.Hostname
	}
	if ip.Is4() {
		return strings.ReplaceAll(ip.String(), ".", "-")
	}
	h := strings.ReplaceAll(ip.String(), ":", "-")
	if strings.HasSuffix(h, "-") {
		h += "0"
	}
	return h
}
