package dnsforward

import (
	"fmt"
	"strings"

	"github.com/miekg/dns"
)

// DefaultZones are the zones sent to the member's DNS server: the KEP-1645
// cluster-set zone and the federation names under the cluster domain.
var DefaultZones = []string{"clusterset.local.", "cluster.local."}

// NormalizeZones returns zones as lower-case fully qualified names, without
// duplicates, or an error naming the first that is not a domain name.
func NormalizeZones(zones []string) ([]string, error) {
	out := make([]string, 0, len(zones))
	seen := map[string]bool{}
	for _, z := range zones {
		z = strings.ToLower(strings.TrimSpace(z))
		if z == "" {
			continue
		}
		z = dns.Fqdn(z)
		if _, ok := dns.IsDomainName(z); !ok {
			return nil, fmt.Errorf("zone %q is not a domain name", z)
		}
		if !seen[z] {
			seen[z] = true
			out = append(out, z)
		}
	}
	return out, nil
}

// InZones reports whether name is one of zones or under one of them. zones
// must be normalized (NormalizeZones); name may be in any case, with or
// without the final dot.
func InZones(name string, zones []string) bool {
	name = dns.Fqdn(strings.ToLower(name))
	for _, z := range zones {
		if z == "." || name == z || strings.HasSuffix(name, "."+z) {
			return true
		}
	}
	return false
}
