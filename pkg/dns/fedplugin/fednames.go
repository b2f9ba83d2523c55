package fedplugin

import (
	"slices"

	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
	"antreaplus.io/antreaplus/pkg/serviceexport/locality"
)

// fedQuery is one query for a federation name of an imported Service.
type fedQuery struct {
	n      name
	owner  string // the query name as asked
	suffix string // <federationID>.svc.[[<zone>.]<region>.]<domain>.
	// place restricts the answer to the exporters' addresses in a region or zone.
	place place
	qtype uint16
	ttl   uint32
	// client is where the client is, for imports that prefer close endpoints.
	client locality.Place
}

// serviceName is <svc>.<ns>.<suffix>, cluster its per-cluster name.
func (q fedQuery) serviceName() string { return q.n.service + "." + q.n.namespace + "." + q.suffix }

func (q fedQuery) clusterName(id string) string {
	return q.n.service + "." + q.n.namespace + "." + id + "." + q.suffix
}

// viaClusterSetIP tells whether the federation-wide name answers the
// import's cluster-set IPs; otherwise (headless, or no IP yet) it answers
// the ready endpoints of every source cluster.
func viaClusterSetIP(svc *importcache.Service) bool { return !svc.Headless && len(svc.IPs) > 0 }

// answerFederation answers a federation name of svc. found is false when
// the name does not exist (NXDOMAIN): a per-cluster name of a cluster
// without ready endpoints, a headless Service without any, a place without
// any, or an SRV name without a matching named port. The Service name
// answered by endpoints holds the closest ones only for a PreferClose
// import; a per-cluster name holds every ready endpoint of its cluster. A
// name of a place is always answered by the endpoints in that place, never
// by the cluster-set IPs (they are in no place), and unfiltered by the
// client's place (the name says where).
func answerFederation(svc *importcache.Service, q fedQuery) (answer, extra []dns.RR, found bool) {
	clusters := svc.Clusters
	if q.n.cluster != "" {
		c := svc.Cluster(q.n.cluster)
		if c == nil {
			return nil, nil, false
		}
		clusters = []importcache.Cluster{*c}
	}
	if q.place.set() {
		clusters = inPlace(clusters, q.place)
	}
	byEndpoints := q.n.cluster != "" || q.place.set() || !viaClusterSetIP(svc)
	near := clusters
	if q.n.cluster == "" && !q.place.set() && byEndpoints {
		near = nearest(svc, clusters, q.client)
	}
	if q.n.srv() || q.qtype == dns.TypeSRV {
		answer, extra = federationSRV(svc, near, q)
		if q.n.srv() {
			// The closest endpoints may lack a port that farther ones have.
			found = len(answer) > 0 || (byEndpoints && hasEndpointPort(clusters, q.n))
			if q.qtype != dns.TypeSRV {
				answer, extra = nil, nil
			}
			return answer, extra, found
		}
	}
	if !byEndpoints {
		if q.qtype == dns.TypeA || q.qtype == dns.TypeAAAA {
			answer = addrRRs(nil, q.owner, q.qtype, q.ttl, svc.IPs)
		}
		return answer, extra, true
	}
	for i := range clusters {
		found = found || clusters[i].Ready()
	}
	if found && (q.qtype == dns.TypeA || q.qtype == dns.TypeAAAA) {
		answer = clusterAddrRRs(nil, q.owner, q.qtype, q.ttl, near...)
	}
	return answer, extra, found
}

// federationSRV answers the SRV records of a federation name. A Service
// reached through its cluster-set IP has one record per named port of the
// import, pointing at the federation-wide name. Otherwise each source
// cluster with ready endpoints has one record per named port of its
// slices, pointing at its per-cluster name, on the port its addresses
// listen on (a NodePort export's node port, a LoadBalancer's port).
func federationSRV(svc *importcache.Service, clusters []importcache.Cluster, q fedQuery) (answer, extra []dns.RR) {
	if q.n.cluster == "" && !q.place.set() && viaClusterSetIP(svc) {
		return portsSRV(q.owner, q.serviceName(), q.ttl, svc.Ports, svc.IPs, q.n)
	}
	for _, c := range clusters {
		target := q.clusterName(c.ID)
		n := len(answer)
		var seen []int32
		for _, sl := range c.Slices {
			if len(sl.Endpoints) == 0 {
				continue
			}
			for _, p := range sl.Ports {
				if matchPort(p, q.n) && !slices.Contains(seen, p.Port) {
					seen = append(seen, p.Port)
					answer = append(answer, srvRR(q.owner, q.ttl, p.Port, target))
				}
			}
		}
		if len(answer) > n {
			extra = clusterAddrRRs(extra, target, 0, q.ttl, c)
		}
	}
	weigh(answer)
	return answer, extra
}
