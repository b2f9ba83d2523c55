// Package records decides the DNS records a federation publishes for one
// federated Service through ExternalDNS's DNSEndpoint (docs/external-dns.md,
// part 2): a pure function from the Service's exporters to the records, with
// no IO. Package dnsendpoints (pkg/federation/dnsendpoints) is the leader
// controller that reads the exporters and writes the DNSEndpoints.
package records

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
)

// OptOutAnnotation on a ServiceExport set to "false" keeps that export's
// addresses out of the published records (the other exports still publish).
const OptOutAnnotation = "federation.antreaplus.io/external-dns"

// DefaultTTL is the TTL in seconds of every record when Input.TTL is 0.
const DefaultTTL int64 = 30

// OptedOut tells whether a ServiceExport's annotations keep it out of the
// published records (OptOutAnnotation "false", in any case).
func OptedOut(annotations map[string]string) bool {
	return strings.EqualFold(strings.TrimSpace(annotations[OptOutAnnotation]), "false")
}

// Kind is how an exporter's Service is reached from outside its cluster.
type Kind string

const (
	// KindLoadBalancer: the load balancer's ingress IPs and hostnames, on the Service ports.
	KindLoadBalancer Kind = "LoadBalancer"
	// KindNodePort: the nodes' ExternalIPs, on the node ports.
	KindNodePort Kind = "NodePort"
	// KindOther: Pod IPs over a flat network, or a ClusterIP; not reachable
	// from outside the members, so never published.
	KindOther Kind = "Other"
)

// Port is one port of an exporter's Service.
type Port struct {
	// Name is the port's name; only named ports have SRV records.
	Name string `json:"name,omitempty"`
	// Protocol is TCP, UDP or SCTP (TCP when empty).
	Protocol string `json:"protocol,omitempty"`
	// Port is the Service port: what a load balancer listens on.
	Port int32 `json:"port,omitempty"`
	// NodePort is the node port: what a NodePort export's nodes listen on.
	NodePort int32 `json:"nodePort,omitempty"`
}

// NodeAddress is one ExternalIP of a node of a NodePort export (never an
// InternalIP: it is not reachable from outside).
type NodeAddress struct {
	IP string `json:"ip"`
	// Zone is the node's topology.kubernetes.io/zone, "" when it has none.
	Zone string `json:"zone,omitempty"`
	// Ready is the node's readiness (Ready and schedulable).
	Ready bool `json:"ready,omitempty"`
}

// Exporter is one member's export of the Service.
type Exporter struct {
	// ClusterID is the exporting member's cluster ID.
	ClusterID string `json:"clusterID"`
	// Region is the member's region (serviceexport.Region), "" when unknown.
	Region string `json:"region,omitempty"`
	// Zones are the zones of the member's nodes (serviceexport.Zones).
	Zones []string `json:"zones,omitempty"`
	Kind  Kind     `json:"kind"`
	// LoadBalancerIPs and LoadBalancerHostnames are the Service's
	// status.loadBalancer.ingress (KindLoadBalancer).
	LoadBalancerIPs       []string `json:"loadBalancerIPs,omitempty"`
	LoadBalancerHostnames []string `json:"loadBalancerHostnames,omitempty"`
	// NodeAddresses are the nodes' ExternalIPs (KindNodePort).
	NodeAddresses []NodeAddress `json:"nodeAddresses,omitempty"`
	Ports         []Port        `json:"ports,omitempty"`
	// Ready is the export's readiness: false keeps it out.
	Ready bool `json:"ready,omitempty"`
	// Reachable is false once the federation marks the member unreachable
	// past the grace (kept true while it is only unreadable).
	Reachable bool `json:"reachable,omitempty"`
	// OptOut is the export's OptOutAnnotation (see OptedOut).
	OptOut bool `json:"optOut,omitempty"`
}

// Input is what the records of one federated Service are decided from.
type Input struct {
	// Domain is the federation's externalDNS.domain; empty, nothing is published.
	Domain string
	// TTL is the records' TTL in seconds; DefaultTTL when 0.
	TTL int64
	// FederationID, Namespace and Service name the federated Service.
	FederationID string
	Namespace    string
	Service      string
	Exporters    []Exporter
}

// Note tells why something of an exporter is not published, for its
// export's status.
type Note struct {
	// ClusterID is the exporter the note is about.
	ClusterID string
	Message   string
}

// Result is the records of one federated Service.
type Result struct {
	// Endpoints are sorted by name then type, one per name and type, with
	// sorted, deduplicated targets.
	Endpoints []externaldnsv1alpha1.Endpoint
	// Notes are sorted by cluster then message, without duplicates.
	Notes []Note
}

// Spec is the DNSEndpoint spec holding r's records.
func (r Result) Spec() externaldnsv1alpha1.DNSEndpointSpec {
	var s externaldnsv1alpha1.DNSEndpointSpec
	for i := range r.Endpoints {
		s.Endpoints = append(s.Endpoints, r.Endpoints[i].DeepCopy())
	}
	return s
}

// Desired decides the records of a federated Service <svc> in <ns> of
// federation <fed> under <domain> (docs/external-dns.md, "Names" and
// "DNSEndpoint records"):
//
//   - Nothing without a domain. Names, the domain, the federation and
//     cluster IDs, regions and zones are lower case (DNS names are compared
//     case-insensitively; so are region and zone values, as in the members'
//     DNS). A trailing dot of the domain is dropped.
//   - Which exporters count ("Health", "Opt-in"): only ready, reachable
//     exporters not opted out (OptOutAnnotation "false"). An exporter the
//     federation marks unreachable past the grace drops out. There is no
//     fallback: a name no exporter backs has no record.
//   - What an exporter offers ("exporter offers" table): a LoadBalancer its
//     ingress IPs and hostnames, on the Service ports; a NodePort its ready
//     nodes' ExternalIPs, on the node ports; KindOther (flat network,
//     ClusterIP) nothing, with a note; so does an exporter offering no
//     address yet. An address that does not parse is left out with a note.
//   - Names: the federation-wide <svc>.<ns>.<fed>.svc.<domain>; the region
//     name <svc>.<ns>.<fed>.svc.<region>.<domain> with the exporters of
//     that region; the zone name <svc>.<ns>.<fed>.svc.<zone>.<region>.<domain>
//     with their addresses in that zone of that region (a zone of another
//     region is another name, never mixed). As in pkg/dns/fedplugin and
//     pkg/dns/importcache (Slice.InZone): a node address is in its node's
//     zone, or, when the node has none, in each of the exporter's zones; a
//     load balancer address is in each of the exporter's zones. An exporter
//     without a region is under the federation-wide name only; a region or
//     zone value holding a dot has no place name (note).
//   - Per name: A and AAAA of the IPv4 and IPv6 addresses of its
//     exporters. A CNAME when the name has exactly one hostname (several
//     exporters may share it) and no IP; otherwise its hostnames cannot be
//     one CNAME and are left out of that name, with a note per exporter
//     (an exporter with only hostnames then adds nothing to that name).
//   - SRV, per name N and named port of an exporter in N (MCS: unnamed
//     ports have no SRV): _<port>._<proto>.N (proto lower case, tcp when
//     unset), one target "0 <weight> <port> <host>." per exporter, on the
//     node port of a NodePort export or the Service port of a load
//     balancer, the weight sharing 100 among the name's targets (at least
//     1), as the members' DNS does. The host is the exporter's per-cluster
//     name of N's place, <svc>.<ns>.<clusterID>.<fed>.svc[.<zone>][.<region>].<domain>,
//     which gets A/AAAA of that exporter's addresses in the place (outside
//     the members the per-cluster names exist only as SRV targets). For an
//     exporter whose part of N is its load balancer's hostname (N is a
//     CNAME), the host is that hostname itself: an SRV target must not be
//     an alias (RFC 2782), so no per-cluster CNAME is made.
//   - Every record has the TTL (DefaultTTL, 30 s, when unset).
func Desired(in Input) Result {
	var b builder
	domain := strings.Trim(strings.ToLower(in.Domain), ".")
	if domain == "" {
		return Result{}
	}
	b.ttl = in.TTL
	if b.ttl == 0 {
		b.ttl = DefaultTTL
	}
	svcPrefix := strings.ToLower(in.Service + "." + in.Namespace + ".")
	fedSvc := strings.ToLower(in.FederationID) + ".svc"
	exporters := b.offers(in.Exporters)

	for _, p := range places(exporters) {
		suffix := fedSvc + p.labels() + "." + domain
		b.name(svcPrefix, suffix, p, exporters)
	}
	return b.result()
}

// place is the region, and within it possibly the zone, a name is
// restricted to; the zero place is the whole federation.
type place struct{ region, zone string }

// labels are the place's labels after <fed>.svc, with a leading dot.
func (p place) labels() string {
	switch {
	case p.zone != "":
		return "." + p.zone + "." + p.region
	case p.region != "":
		return "." + p.region
	}
	return ""
}

// address is one address an exporter offers and the zones it is in.
type address struct {
	ip    netip.Addr // valid for an IP
	host  string     // a load balancer hostname otherwise
	zones []string
}

// offer is what one counted exporter offers.
type offer struct {
	cluster string
	region  string // "" when it has no (valid) region
	addrs   []address
	// ports are the named ports: SRV labels and the port addresses listen on.
	ports []srvPort
}

type srvPort struct {
	name, proto string
	port        int32
}

// in is the part of o's addresses in p (nil when o is not in p).
func (o offer) in(p place) (ips []netip.Addr, hosts []string) {
	if p.region != "" && o.region != p.region {
		return nil, nil
	}
	for _, a := range o.addrs {
		if p.zone != "" && !slices.Contains(a.zones, p.zone) {
			continue
		}
		if a.ip.IsValid() {
			ips = append(ips, a.ip)
		} else {
			hosts = append(hosts, a.host)
		}
	}
	return ips, hosts
}

type recordKey struct{ name, typ string }

type builder struct {
	ttl     int64
	records map[recordKey][]string
	notes   []Note
}

func (b *builder) note(cluster, format string, args ...any) {
	b.notes = append(b.notes, Note{ClusterID: cluster, Message: fmt.Sprintf(format, args...)})
}

func (b *builder) add(name, typ string, targets ...string) {
	if b.records == nil {
		b.records = map[recordKey][]string{}
	}
	k := recordKey{name, typ}
	b.records[k] = append(b.records[k], targets...)
}

// offers are the counted exporters' offers, sorted by cluster ID.
func (b *builder) offers(exporters []Exporter) []offer {
	var out []offer
	for _, e := range exporters {
		if !e.Ready || !e.Reachable || e.OptOut {
			continue
		}
		o := offer{cluster: strings.ToLower(e.ClusterID), region: strings.ToLower(e.Region)}
		if strings.Contains(o.region, ".") {
			b.note(o.cluster, "region %q holds a dot: no region or zone names", e.Region)
			o.region = ""
		}
		var zones []string
		for _, z := range e.Zones {
			if z = b.zone(o.cluster, z); z != "" && !slices.Contains(zones, z) {
				zones = append(zones, z)
			}
		}
		switch e.Kind {
		case KindLoadBalancer:
			for _, s := range e.LoadBalancerIPs {
				if ip, ok := b.ip(o.cluster, s); ok {
					o.addrs = append(o.addrs, address{ip: ip, zones: zones})
				}
			}
			for _, h := range e.LoadBalancerHostnames {
				if h = strings.Trim(strings.ToLower(h), "."); h != "" {
					o.addrs = append(o.addrs, address{host: h, zones: zones})
				}
			}
		case KindNodePort:
			for _, n := range e.NodeAddresses {
				if !n.Ready {
					continue
				}
				if ip, ok := b.ip(o.cluster, n.IP); ok {
					in := zones
					if n.Zone != "" {
						in = nil
						if z := b.zone(o.cluster, n.Zone); z != "" {
							in = []string{z}
						}
					}
					o.addrs = append(o.addrs, address{ip: ip, zones: in})
				}
			}
		default:
			b.note(o.cluster, "exported over Pod IPs or a ClusterIP, not reachable from outside the members: not published")
			continue
		}
		for _, p := range e.Ports {
			port := p.Port
			if e.Kind == KindNodePort {
				port = p.NodePort
			}
			if p.Name == "" || port == 0 {
				continue
			}
			proto := strings.ToLower(p.Protocol)
			if proto == "" {
				proto = "tcp"
			}
			o.ports = append(o.ports, srvPort{name: strings.ToLower(p.Name), proto: proto, port: port})
		}
		if len(o.addrs) == 0 {
			b.note(o.cluster, "no address reachable from outside (a load balancer's ingress, a ready node's ExternalIP): not published")
			continue
		}
		out = append(out, o)
	}
	slices.SortStableFunc(out, func(a, b offer) int { return strings.Compare(a.cluster, b.cluster) })
	return out
}

// zone is z lower case, "" (with a note) when it holds a dot.
func (b *builder) zone(cluster, z string) string {
	if strings.Contains(z, ".") {
		b.note(cluster, "zone %q holds a dot: no zone name", z)
		return ""
	}
	return strings.ToLower(z)
}

func (b *builder) ip(cluster, s string) (netip.Addr, bool) {
	ip, err := netip.ParseAddr(s)
	if err != nil {
		b.note(cluster, "address %q is not an IP address: left out", s)
		return netip.Addr{}, false
	}
	return ip.Unmap(), true
}

// places are the federation and every region and zone of the offers'
// addresses, sorted.
func places(offers []offer) []place {
	out := []place{{}}
	for _, o := range offers {
		if o.region == "" {
			continue
		}
		if p := (place{region: o.region}); !slices.Contains(out, p) {
			out = append(out, p)
		}
		for _, a := range o.addrs {
			for _, z := range a.zones {
				if p := (place{region: o.region, zone: z}); !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b place) int {
		if c := strings.Compare(a.region, b.region); c != 0 {
			return c
		}
		return strings.Compare(a.zone, b.zone)
	})
	return out
}

// name adds the records of the name <svcPrefix><suffix> of place p.
func (b *builder) name(svcPrefix, suffix string, p place, offers []offer) {
	name := svcPrefix + suffix
	var allIPs []netip.Addr
	var allHosts []string
	for _, o := range offers {
		ips, hosts := o.in(p)
		allIPs = append(allIPs, ips...)
		for _, h := range hosts {
			if !slices.Contains(allHosts, h) {
				allHosts = append(allHosts, h)
			}
		}
	}
	cname := len(allIPs) == 0 && len(allHosts) == 1
	type srvTarget struct {
		port srvPort
		host string
	}
	var targets []srvTarget
	for _, o := range offers {
		ips, hosts := o.in(p)
		var host string
		switch {
		case len(ips) > 0:
			host = svcPrefix + o.cluster + "." + suffix
		case cname && len(hosts) > 0:
			host = allHosts[0]
		}
		if len(hosts) > 0 && !cname {
			b.note(o.cluster, "load balancer hostnames %s left out of %s: a name with several hostnames, or hostnames and IPs, cannot be one CNAME",
				strings.Join(hosts, ", "), name)
		}
		if host == "" {
			continue
		}
		for _, sp := range o.ports {
			targets = append(targets, srvTarget{sp, host})
		}
		if len(ips) > 0 && len(o.ports) > 0 {
			b.addIPs(host, ips)
		}
	}
	b.addIPs(name, allIPs)
	if cname {
		b.add(name, externaldnsv1alpha1.RecordTypeCNAME, allHosts[0])
	}
	// One SRV name per port name and protocol; its targets' weights share 100.
	bySRV := map[string][]srvTarget{}
	for _, t := range targets {
		n := "_" + t.port.name + "._" + t.port.proto + "." + name
		if !slices.Contains(bySRV[n], t) {
			bySRV[n] = append(bySRV[n], t)
		}
	}
	for n, ts := range bySRV {
		w := max(100/len(ts), 1)
		for _, t := range ts {
			b.add(n, externaldnsv1alpha1.RecordTypeSRV, fmt.Sprintf("0 %d %d %s.", w, t.port.port, t.host))
		}
	}
}

// addIPs adds A and AAAA records of name.
func (b *builder) addIPs(name string, ips []netip.Addr) {
	for _, ip := range ips {
		typ := externaldnsv1alpha1.RecordTypeA
		if ip.Is6() {
			typ = externaldnsv1alpha1.RecordTypeAAAA
		}
		b.add(name, typ, ip.String())
	}
}

// result sorts the records and notes.
func (b *builder) result() Result {
	var r Result
	for k, targets := range b.records {
		if k.typ == externaldnsv1alpha1.RecordTypeA || k.typ == externaldnsv1alpha1.RecordTypeAAAA {
			slices.SortFunc(targets, func(x, y string) int {
				return netip.MustParseAddr(x).Compare(netip.MustParseAddr(y))
			})
		} else {
			slices.Sort(targets)
		}
		r.Endpoints = append(r.Endpoints, externaldnsv1alpha1.Endpoint{
			DNSName: k.name, RecordType: k.typ, RecordTTL: b.ttl, Targets: slices.Compact(targets),
		})
	}
	slices.SortFunc(r.Endpoints, func(x, y externaldnsv1alpha1.Endpoint) int {
		if c := strings.Compare(x.DNSName, y.DNSName); c != 0 {
			return c
		}
		return strings.Compare(x.RecordType, y.RecordType)
	})
	slices.SortFunc(b.notes, func(x, y Note) int {
		if c := strings.Compare(x.ClusterID, y.ClusterID); c != 0 {
			return c
		}
		return strings.Compare(x.Message, y.Message)
	})
	r.Notes = slices.Compact(b.notes)
	return r
}
