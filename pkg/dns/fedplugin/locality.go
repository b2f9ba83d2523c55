package fedplugin

import (
	"net/netip"

	"github.com/coredns/coredns/request"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
	"antreaplus.io/antreaplus/pkg/serviceexport/locality"
)

// nearest is what answers made of svc's endpoints hold: for an import
// whose trafficDistribution is PreferClose, only the ready endpoints in
// the tier closest to client (package serviceexport/locality); every
// endpoint of clusters for other imports. The tier does not depend on the
// address family asked: A and AAAA answers hold the same subset of
// endpoints (Multicluster DNS specification, headless Services).
func nearest(svc *importcache.Service, clusters []importcache.Cluster, client locality.Place) []importcache.Cluster {
	if !svc.PreferClose {
		return clusters
	}
	type ref struct{ c, s, e int }
	var (
		refs   []ref
		places []locality.Place
	)
	for ci, c := range clusters {
		for si, sl := range c.Slices {
			for ei, e := range sl.Endpoints {
				refs = append(refs, ref{ci, si, ei})
				places = append(places, locality.Place{Cluster: c.ID, Region: sl.Region, Zone: e.Zone})
			}
		}
	}
	var out []importcache.Cluster
	for _, i := range locality.Closest(client, places) {
		r := refs[i]
		c := clusters[r.c]
		sl := c.Slices[r.s]
		if len(out) == 0 || out[len(out)-1].ID != c.ID {
			out = append(out, importcache.Cluster{ID: c.ID})
		}
		oc := &out[len(out)-1]
		if n := len(oc.Slices); n == 0 || oc.Slices[n-1].Name != sl.Name {
			part := *sl
			part.Endpoints = nil
			oc.Slices = append(oc.Slices, &part)
		}
		last := oc.Slices[len(oc.Slices)-1]
		last.Endpoints = append(last.Endpoints, sl.Endpoints[r.e])
	}
	return out
}

// clientPlace is where the client of a query is: this member's cluster,
// and the zone and region of the member's Node whose address or pod CIDR
// holds the client's address (the member's most common region, and no
// zone, when none does).
func (f *Federation) clientPlace(state request.Request) locality.Place {
	p := locality.Place{Cluster: f.ClusterID}
	if p.Cluster == "" {
		p.Cluster = f.source.ClusterID()
	}
	if ip, err := netip.ParseAddr(state.IP()); err == nil {
		p.Zone, p.Region, _ = f.source.Locate(ip)
	}
	return p
}
