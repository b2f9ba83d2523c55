package fedplugin

import (
	"net/netip"
	"strings"

	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
	"antreaplus.io/antreaplus/pkg/serviceexport/locality"
)

// clustersetQuery is one query under the clusterset zone.
type clustersetQuery struct {
	n     name
	owner string // the query name as asked
	zone  string // the clusterset zone, e.g. clusterset.local.
	qtype uint16
	ttl   uint32
	// client is where the client is, for imports that prefer close endpoints.
	client locality.Place
}

// serviceName is <svc>.<ns>.svc.<zone>.
func (q clustersetQuery) serviceName(svc *importcache.Service) string {
	return svc.Name + "." + svc.Namespace + ".svc." + q.zone
}

// endpointName is <hostname>.<clusterid>.<svc>.<ns>.svc.<zone>.
func (q clustersetQuery) endpointName(svc *importcache.Service, cluster, host string) string {
	return host + "." + cluster + "." + q.serviceName(svc)
}

// answerClusterset answers a Service name (serviceForm, with or without
// _port._proto) or an endpoint name (endpointForm) of svc, following the
// Multicluster DNS specification (KEP-1645). found is false when the name
// does not exist (NXDOMAIN): a headless Service without ready endpoints
// (2.4.1), an SRV name without a matching named port or endpoint, an
// endpoint name of a ClusterSetIP Service (2.3.4) or of no ready endpoint.
func answerClusterset(svc *importcache.Service, form clustersetForm, q clustersetQuery) (answer, extra []dns.RR, found bool) {
	addrQuery := q.qtype == dns.TypeA || q.qtype == dns.TypeAAAA
	switch {
	case form == endpointForm:
		if !svc.Headless {
			return nil, nil, false
		}
		addrs := endpointAddrs(svc, q.n)
		if addrQuery {
			answer = addrRRs(nil, q.owner, q.qtype, q.ttl, addrs)
		}
		return answer, nil, len(addrs) > 0
	case q.n.srv() || q.qtype == dns.TypeSRV:
		answer, extra, found = clustersetSRV(svc, q)
		if q.qtype != dns.TypeSRV {
			answer, extra = nil, nil
		}
		return answer, extra, found
	case !svc.Headless:
		if addrQuery {
			answer = addrRRs(nil, q.owner, q.qtype, q.ttl, svc.IPs)
		}
		return answer, nil, true
	case !svc.Ready():
		return nil, nil, false
	case addrQuery:
		answer = clusterAddrRRs(nil, q.owner, q.qtype, q.ttl, nearest(svc, svc.Clusters, q.client)...)
	}
	return answer, nil, true
}

// clustersetSRV answers SRV for <svc>.<ns>.svc.<zone> and
// _<port>._<proto>.<svc>.<ns>.svc.<zone> with named ports only (2.3.2 and
// 2.4.2: "Unnamed ports do not have an SRV record"): for a ClusterSetIP
// Service one record per matching port of the import, pointing at the
// Service name; for a headless one a record per ready endpoint (the
// closest ones for a PreferClose import) and matching port of its slice,
// pointing at the endpoint's name. Identical records (tcp/42 and udp/42)
// are one. found tells whether the name exists:
// always for a ClusterSetIP Service name, when any ready endpoint does for
// a headless one, and when any record matches for _port._proto names.
func clustersetSRV(svc *importcache.Service, q clustersetQuery) (answer, extra []dns.RR, found bool) {
	if !svc.Headless {
		answer, extra = portsSRV(q.owner, q.serviceName(svc), q.ttl, svc.Ports, svc.IPs, q.n)
		return answer, extra, len(answer) > 0 || !q.n.srv()
	}
	if !svc.Ready() || (q.n.srv() && !hasEndpointPort(svc.Clusters, q.n)) {
		return nil, nil, false
	}
	answer, extra = headlessSRV(svc, q)
	return answer, extra, true
}

// headlessSRV are the SRV records of a headless Service name: one per
// ready endpoint (the closest ones for a PreferClose import) and matching
// named port of its slice, pointing at the endpoint's name, with the
// endpoint's addresses as glue. An endpoint named by its hostname in an
// IPv4 and an IPv6 slice has one record per port, and both addresses as
// glue.
func headlessSRV(svc *importcache.Service, q clustersetQuery) (answer, extra []dns.RR) {
	type record struct {
		target string
		port   int32
	}
	seen := map[record]bool{}
	for _, c := range nearest(svc, svc.Clusters, q.client) {
		for _, sl := range c.Slices {
			for _, e := range sl.Endpoints {
				for _, ip := range e.Addrs {
					target := q.endpointName(svc, c.ID, endpointHostname(e, ip))
					glue := false
					for _, p := range sl.Ports {
						if !matchPort(p, q.n) {
							continue
						}
						glue = true
						if r := (record{target, p.Port}); !seen[r] {
							seen[r] = true
							answer = append(answer, srvRR(q.owner, q.ttl, p.Port, target))
						}
					}
					if glue {
						extra = append(extra, addrRR(target, q.ttl, ip))
					}
				}
			}
		}
	}
	weigh(answer)
	return answer, extra
}

// hasEndpointPort tells whether a slice with ready endpoints has a port
// matching the SRV name.
func hasEndpointPort(clusters []importcache.Cluster, n name) bool {
	for _, c := range clusters {
		for _, sl := range c.Slices {
			if len(sl.Endpoints) == 0 {
				continue
			}
			for _, p := range sl.Ports {
				if matchPort(p, n) {
					return true
				}
			}
		}
	}
	return false
}

// endpointAddrs are the addresses of the ready endpoints of cluster
// n.cluster whose name is n.host: its hostname, or its address with dashes
// when it has none (2.4.1). A hostname may name an endpoint in an IPv4 and
// in an IPv6 slice.
func endpointAddrs(svc *importcache.Service, n name) []netip.Addr {
	c := svc.Cluster(n.cluster)
	if c == nil {
		return nil
	}
	var out []netip.Addr
	for _, sl := range c.Slices {
		for _, e := range sl.Endpoints {
			for _, ip := range e.Addrs {
				if strings.EqualFold(endpointHostname(e, ip), n.host) {
					out = append(out, ip)
				}
			}
		}
	}
	return out
}

// reverseTargets are the names of ip among svcs: the Service name of a
// cluster-set IP, the endpoint name of a headless endpoint. Schema 1.0.0 of
// the Multicluster DNS specification does not require PTR records; a
// resolver pointed at this server gets them anyway.
func reverseTargets(svcs []*importcache.Service, ip netip.Addr, q clustersetQuery) []dns.RR {
	var out []dns.RR
	for _, svc := range svcs {
		if !svc.Headless {
			out = append(out, ptrRR(q.owner, q.ttl, q.serviceName(svc)))
			continue
		}
		for _, c := range svc.Clusters {
			for _, sl := range c.Slices {
				for _, e := range sl.Endpoints {
					for _, a := range e.Addrs {
						if a == ip {
							out = append(out, ptrRR(q.owner, q.ttl, q.endpointName(svc, c.ID, endpointHostname(e, a))))
						}
					}
				}
			}
		}
	}
	return out
}
