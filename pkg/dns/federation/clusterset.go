package federation

import (
	"net/netip"

	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// clustersetQuery is one query under the clusterset zone.
type clustersetQuery struct {
	owner string // the query name as asked
	zone  string // the clusterset zone, e.g. clusterset.local.
	qtype uint16
	ttl   uint32
}

// serviceName is <svc>.<ns>.svc.<zone>.
func (q clustersetQuery) serviceName(svc *importcache.Service) string {
	return svc.Name + "." + svc.Namespace + ".svc." + q.zone
}

// endpointName is <hostname>.<clusterid>.<svc>.<ns>.svc.<zone>.
func (q clustersetQuery) endpointName(svc *importcache.Service, cluster, host string) string {
	return host + "." + cluster + "." + q.serviceName(svc)
}

// clustersetSRV answers SRV for <svc>.<ns>.svc.<zone> with named ports
// only (KEP-1645 specification 2.3.2 and 2.4.2: "Unnamed ports do not have
// an SRV record"): for a ClusterSetIP Service one record per named port
// of the import, for a headless one a record per ready endpoint and named
// port, pointing at the endpoint's name. found is false for a headless
// Service without ready endpoints (NXDOMAIN, 2.4.1).
func clustersetSRV(svc *importcache.Service, q clustersetQuery) (answer, extra []dns.RR, found bool) {
	if !svc.Headless {
		target := q.serviceName(svc)
		for _, p := range svc.Ports {
			if p.Name != "" {
				answer = append(answer, srvRR(q.owner, q.ttl, p.Port, target))
			}
		}
		if len(answer) > 0 {
			extra = addrRRs(nil, target, 0, q.ttl, svc.IPs)
		}
		weigh(answer)
		return answer, extra, true
	}
	for _, c := range svc.Clusters {
		for _, sl := range c.Slices {
			for _, e := range sl.Endpoints {
				for _, ip := range e.Addrs {
					target := q.endpointName(svc, c.ID, endpointHostname(e, ip))
					n := len(answer)
					for _, p := range sl.Ports {
						if p.Name != "" {
							answer = append(answer, srvRR(q.owner, q.ttl, p.Port, target))
						}
					}
					if len(answer) > n {
						extra = append(extra, addrRR(target, q.ttl, ip))
					}
				}
			}
		}
	}
	weigh(answer)
	return answer, extra, svc.Ready()
}

// reverseTargets are the names of ip among svcs (KEP-1645 specification
// 2.3.3 and 2.4.3): the Service name of a cluster-set IP, the endpoint
// name of a headless endpoint.
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
