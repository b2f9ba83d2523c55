package locality

import "sort"

// FartherZone is the zone hinted for endpoints that are in no zone's
// closest tier: no node is in it, so a hint-aware proxy skips them.
const FartherZone = "antreaplus.farther"

// Place is where a client or an endpoint is. Empty fields are unknown.
type Place struct {
	Cluster string
	Region  string
	Zone    string
}

// Tier is how close an endpoint is to a client; lower is closer.
type Tier int

// The tiers, closest first.
const (
	LocalZone Tier = iota
	Local
	Zone
	Region
	Farther
)

var tierNames = [...]string{"LocalZone", "Local", "Zone", "Region", "Farther"}

func (t Tier) String() string {
	if t < 0 || int(t) >= len(tierNames) {
		return "Tier(?)"
	}
	return tierNames[t]
}

// TierOf is the tier of an endpoint at ep seen from a client at client.
func TierOf(client, ep Place) Tier {
	sameZone := client.Zone != "" && client.Zone == ep.Zone
	switch {
	case client.Cluster != "" && client.Cluster == ep.Cluster && sameZone:
		return LocalZone
	case client.Cluster != "" && client.Cluster == ep.Cluster:
		return Local
	case sameZone:
		return Zone
	case client.Region != "" && client.Region == ep.Region:
		return Region
	}
	return Farther
}

// Closest returns the indices of eps in the closest tier that holds any,
// in their order; nil when eps is empty.
func Closest(client Place, eps []Place) []int {
	best := Farther + 1
	var out []int
	for i, ep := range eps {
		switch t := TierOf(client, ep); {
		case t < best:
			best, out = t, append(out[:0], i)
		case t == best:
			out = append(out, i)
		}
	}
	return out
}

// Hints returns, per endpoint of eps, the zones whose hints it carries,
// for the member local whose nodes are in zones (zone -> region). Each
// endpoint is hinted for the zones for which it is in the closest tier,
// or for FartherZone when for none. It returns nil when zones is empty:
// without zones no hint can be right.
func Hints(local string, zones map[string]string, eps []Place) [][]string {
	if len(zones) == 0 || len(eps) == 0 {
		return nil
	}
	names := make([]string, 0, len(zones))
	for z := range zones {
		if z != "" {
			names = append(names, z)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	out := make([][]string, len(eps))
	for _, z := range names {
		for _, i := range Closest(Place{Cluster: local, Region: zones[z], Zone: z}, eps) {
			out[i] = append(out[i], z)
		}
	}
	for i := range out {
		if len(out[i]) == 0 {
			out[i] = []string{FartherZone}
		}
	}
	return out
}
