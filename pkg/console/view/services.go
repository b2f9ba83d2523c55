package view

import (
	"fmt"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport"
	"antreaplus.io/antreaplus/pkg/serviceexport/federatedservice"
)

// The kinds the services view reads.
var serviceKinds = []string{"ServiceExports", "Services", "EndpointSlices", "ServiceImports", "DNSEndpoints", "Nodes"}

// Services is the federated Services view.
type Services struct {
	Headers  []MemberHeader `json:"headers"`
	Services []Service      `json:"services"`
	// Unreadable are the members whose exports and imports could not be
	// read at all (unreachable before anything was read).
	Unreadable map[string]string `json:"unreadable,omitempty"`
}

// Service is one federated Service: what `antreaplus service list` shows
// (exporters, importers, type, ports, conflicts), its DNS names and the
// ExternalDNS records the members publish of it.
type Service struct {
	federatedservice.FederatedService
	Names   []DNSName `json:"names"`
	Records []Record  `json:"records"`
	// Contexts maps the exporters' and importers' ClusterIDs to their
	// contexts (for the kubectl commands).
	Contexts map[string]string `json:"contexts"`
	Kubectl  []string          `json:"kubectl"`
}

// DNSName is a name the Service answers to, and where.
type DNSName struct {
	Name string `json:"name"`
	// Scope: "cluster-set", "federation", "cluster", "region", "zone".
	Scope string `json:"scope"`
	// Of is the cluster, region or zone the name is of.
	Of string `json:"of,omitempty"`
}

// Record is a DNS record of the Service that a member publishes through
// ExternalDNS (its DNSEndpoints).
type Record struct {
	Member  string   `json:"member"`
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Targets []string `json:"targets"`
	TTL     int64    `json:"ttl,omitempty"`
}

// ServicesOf is the services view of the members at now; domain is the
// members' cluster domain (cluster.local).
func ServicesOf(members []*Member, domain string, now time.Time) Services {
	v := Services{Headers: []MemberHeader{}, Services: []Service{}}
	var objs []federatedservice.MemberObjects
	contexts := map[string]string{}
	places := map[string]place{}
	fed := ""
	for _, m := range sortMembers(members) {
		v.Headers = append(v.Headers, header(m, serviceKinds...))
		id := m.ClusterID()
		if id == "" {
			continue
		}
		if fed == "" {
			fed = m.Membership.Spec.FederationID
		}
		contexts[id] = m.Context
		places[id] = place{region: serviceexport.Region(m.Nodes), zones: serviceexport.Zones(m.Nodes)}
		objs = append(objs, memberObjects(m))
	}
	l := federatedservice.Build(fed, objs)
	if len(l.Unreadable) > 0 {
		v.Unreadable = l.Unreadable
	}
	records := recordsOf(members)
	for _, s := range l.Services {
		svc := Service{FederatedService: s, Contexts: map[string]string{}, Records: []Record{}, Kubectl: []string{}}
		for _, e := range s.Exporters {
			svc.Contexts[e.Cluster] = contexts[e.Cluster]
			svc.Kubectl = append(svc.Kubectl, Kubectl(contexts[e.Cluster], "serviceexports.multicluster.x-k8s.io", s.Namespace, s.Name))
		}
		for _, i := range s.Importers {
			svc.Contexts[i.Cluster] = contexts[i.Cluster]
			svc.Kubectl = append(svc.Kubectl, Kubectl(contexts[i.Cluster], "serviceimports.multicluster.x-k8s.io", s.Namespace, s.Name))
		}
		svc.Names = namesOf(s, fed, domain, places)
		if r := records[types.NamespacedName{Namespace: s.Namespace, Name: s.Name}]; r != nil {
			svc.Records = r
		}
		v.Services = append(v.Services, svc)
	}
	return v
}

// place is where a member is.
type place struct {
	region string
	zones  []string
}

// namesOf are the Service's names: its cluster-set name, its federation
// name, each exporter's per-cluster name, and the region and zone names
// of the exporters' places (docs/dns.md).
func namesOf(s federatedservice.FederatedService, fed, domain string, places map[string]place) []DNSName {
	base := s.Name + "." + s.Namespace
	out := []DNSName{{Name: base + ".svc.clusterset.local", Scope: "cluster-set"}}
	if fed == "" {
		return out
	}
	out = append(out, DNSName{Name: fmt.Sprintf("%s.%s.svc.%s", base, fed, domain), Scope: "federation"})
	var regions, zones []string
	for _, e := range s.Exporters {
		out = append(out, DNSName{Name: fmt.Sprintf("%s.%s.%s.svc.%s", base, e.Cluster, fed, domain), Scope: "cluster", Of: e.Cluster})
		p := places[e.Cluster]
		if p.region == "" {
			continue
		}
		if !slices.Contains(regions, p.region) {
			regions = append(regions, p.region)
		}
		for _, z := range p.zones {
			if zr := z + "." + p.region; !slices.Contains(zones, zr) {
				zones = append(zones, zr)
			}
		}
	}
	sort.Strings(regions)
	sort.Strings(zones)
	for _, r := range regions {
		out = append(out, DNSName{Name: fmt.Sprintf("%s.%s.svc.%s.%s", base, fed, r, domain), Scope: "region", Of: r})
	}
	for _, z := range zones {
		out = append(out, DNSName{Name: fmt.Sprintf("%s.%s.svc.%s.%s", base, fed, z, domain), Scope: "zone", Of: z})
	}
	return out
}

// recordsOf are the ExternalDNS records every member publishes, by the
// federated Service they are of.
func recordsOf(members []*Member) map[types.NamespacedName][]Record {
	out := map[types.NamespacedName][]Record{}
	for _, m := range sortMembers(members) {
		for _, ep := range m.DNSEndpoints {
			k := types.NamespacedName{Namespace: ep.Labels[federationv1alpha1.LabelServiceNamespace], Name: ep.Labels[federationv1alpha1.LabelServiceName]}
			if k.Name == "" {
				continue
			}
			for _, e := range ep.Spec.Endpoints {
				out[k] = append(out[k], Record{Member: m.Context, Name: e.DNSName, Type: e.RecordType, Targets: e.Targets, TTL: e.RecordTTL})
			}
		}
	}
	return out
}

// memberObjects is what the listing reads of a member.
func memberObjects(m *Member) federatedservice.MemberObjects {
	o := federatedservice.MemberObjects{ClusterID: m.ClusterID(), Exports: m.Exports, Slices: m.Slices, Nodes: m.Nodes,
		Services: map[types.NamespacedName]*corev1.Service{}}
	for i := range m.Services {
		o.Services[types.NamespacedName{Namespace: m.Services[i].Namespace, Name: m.Services[i].Name}] = &m.Services[i]
	}
	for _, imp := range m.Imports {
		if imp.Labels[federationv1alpha1.LabelManagedBy] == federationv1alpha1.ManagedByFederation {
			o.Imports = append(o.Imports, imp)
		}
	}
	if !m.Health.Reachable && m.Health.Probed && len(m.Exports) == 0 && len(m.Imports) == 0 && !readable(m, "ServiceExports") {
		o.Err = fmt.Errorf("unreachable: %s", m.Health.Error)
	}
	return o
}
