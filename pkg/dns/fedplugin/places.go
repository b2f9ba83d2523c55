package fedplugin

import (
	"strings"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// place is the region, and within it possibly the zone, that a federation
// name is restricted to: <svc>.<ns>.<fed>.svc.[<zone>.]<region>.<domain>.
// The zero place is the whole federation.
type place struct{ region, zone string }

// set tells whether the name is restricted to a place.
func (p place) set() bool { return p.region != "" }

// splitFederation finds the federation tree in l, the labels of a query
// name under a federation domain: the labels end with <fed>.svc (the whole
// federation), <fed>.svc.<region> or <fed>.svc.<zone>.<region>, tried in
// that order (the forms can be confused only by a federation named "svc").
// rest are the labels before <fed>; ok is false when l is in no form.
func splitFederation(l []string, fed string) (rest []string, p place, ok bool) {
	n := len(l)
	at := func(i int, s string) bool { return i >= 0 && strings.EqualFold(l[i], s) }
	switch {
	case at(n-1, "svc") && at(n-2, fed):
		return l[:n-2], place{}, true
	case n >= 3 && at(n-2, "svc") && at(n-3, fed) && l[n-1] != "":
		return l[:n-3], place{region: l[n-1]}, true
	case n >= 4 && at(n-3, "svc") && at(n-4, fed) && l[n-1] != "" && l[n-2] != "":
		return l[:n-4], place{region: l[n-1], zone: l[n-2]}, true
	}
	return nil, place{}, false
}

// inPlace is the part of clusters in p: the slices of source clusters in
// p's region (the slice's source region) and, when p names a zone, only
// their ready endpoints in that zone (an endpoint's own zone, or for one
// without, a load balancer address, its source cluster's zones). Slices
// left without endpoints and clusters left without slices are dropped.
func inPlace(clusters []importcache.Cluster, p place) []importcache.Cluster {
	var out []importcache.Cluster
	for _, c := range clusters {
		var kept []*importcache.Slice
		for _, sl := range c.Slices {
			if !strings.EqualFold(sl.Region, p.region) {
				continue
			}
			if p.zone != "" {
				sl = inZone(sl, p.zone)
			}
			if len(sl.Endpoints) > 0 {
				kept = append(kept, sl)
			}
		}
		if len(kept) > 0 {
			out = append(out, importcache.Cluster{ID: c.ID, Slices: kept})
		}
	}
	return out
}

// inZone is a copy of sl holding only its endpoints in zone.
func inZone(sl *importcache.Slice, zone string) *importcache.Slice {
	part := *sl
	part.Endpoints = nil
	for _, e := range sl.Endpoints {
		if sl.InZone(e, zone) {
			part.Endpoints = append(part.Endpoints, e)
		}
	}
	return &part
}
