// Package fedplugin is AntreaPlus's CoreDNS plugin "federation". It answers, from the
// member's imports alone:
//
//   - the whole clusterset.local zone (KEP-1645's Multicluster DNS
//     specification): Service names, _port._proto SRV names, headless
//     per-endpoint names, dns-version, and PTR of cluster-set IPs and
//     headless endpoints;
//   - the federation names <svc>.<ns>.<federationID>.svc.<domain> and
//     <svc>.<ns>.<clusterID>.<federationID>.svc.<domain> (with their SRV
//     names), and the same names of a region or zone,
//     <svc>.<ns>.<federationID>.svc.[<zone>.]<region>.<domain>, answered by
//     the exporters' addresses in that place.
//
// For imports whose trafficDistribution is PreferClose, answers made of
// endpoints hold the ones closest to the client (package
// serviceexport/locality). Every other name goes on to the next plugin
// (the stock kubernetes plugin for cluster.local, forward for the rest).
//
// See README.md for the Corefile syntax and docs/dns.md for the reasons.
package fedplugin

import (
	"context"
	"net/netip"
	"strings"

	"github.com/coredns/coredns/plugin"
	"github.com/coredns/coredns/plugin/pkg/dnsutil"
	"github.com/coredns/coredns/plugin/pkg/fall"
	"github.com/coredns/coredns/request"
	"github.com/miekg/dns"

	"antreaplus.io/antreaplus/pkg/dns/importcache"
)

// Source is what the plugin answers from: the member's imports and its
// federation ID. *importcache.Watcher is the real one.
type Source interface {
	Service(namespace, name string) *importcache.Service
	HasNamespace(namespace string) bool
	ByAddr(ip netip.Addr) []*importcache.Service
	FederationID() string
	// ClusterID is the member's cluster ID, "" when unknown.
	ClusterID() string
	// Locate is the zone and region of a client address (see
	// importcache.Nodes.Locate).
	Locate(ip netip.Addr) (zone, region string, found bool)
	HasSynced() bool
	Serial() uint32
}

// Federation is the plugin.
type Federation struct {
	Next plugin.Handler
	// Zones are the domains of federation names, fully qualified.
	Zones []string
	// ReverseZones are where the plugin answers PTR authoritatively; in
	// other reverse zones it answers the addresses it knows and passes the
	// rest on.
	ReverseZones []string
	// Clusterset is the MCS zone the plugin answers, "" for none.
	Clusterset string
	// ClusterID is the member's cluster ID for locality; "" takes the
	// source's.
	ClusterID string
	TTL       uint32
	Fall      fall.F

	source Source
}

// New returns the plugin answering from src.
func New(src Source) *Federation {
	return &Federation{Clusterset: "clusterset.local.", TTL: defaultTTL, source: src}
}

// Name implements plugin.Handler.
func (f *Federation) Name() string { return Name }

// Ready implements the ready plugin's Readiness: the imports are listed.
func (f *Federation) Ready() bool { return f.source.HasSynced() }

// ServeDNS implements plugin.Handler.
func (f *Federation) ServeDNS(ctx context.Context, w dns.ResponseWriter, r *dns.Msg) (int, error) {
	state := request.Request{W: w, Req: r}
	qname := state.Name()
	switch {
	case f.Clusterset != "" && dns.IsSubDomain(f.Clusterset, qname):
		return f.serveClusterset(ctx, state)
	case f.Clusterset != "" && state.QType() == dns.TypePTR && dnsutil.IsReverse(qname) > 0:
		return f.servePTR(ctx, state)
	}
	if zone := plugin.Zones(f.Zones).Matches(qname); zone != "" {
		return f.serveFederation(ctx, state, zone)
	}
	return plugin.NextOrFailure(f.Name(), f.Next, ctx, w, r)
}

func (f *Federation) serveFederation(ctx context.Context, state request.Request, zone string) (int, error) {
	fed := f.source.FederationID()
	if fed == "" {
		if !f.source.HasSynced() {
			// Not read yet: resolvers retry a SERVFAIL.
			return dns.RcodeServerFailure, nil
		}
		// The member is in no federation: the zone's other names, the
		// member's own, are the next plugin's.
		return plugin.NextOrFailure(f.Name(), f.Next, ctx, state.W, state.Req)
	}
	all, _ := labels(state.Name(), zone)
	l, where, under := splitFederation(all, fed)
	if !under {
		return plugin.NextOrFailure(f.Name(), f.Next, ctx, state.W, state.Req)
	}
	suffix := dns.Fqdn(strings.Join(all[len(l):], ".")) + zone
	n, ok := parseFederation(l)
	if !ok {
		// The apex and namespace nodes exist (NODATA) when imports live under them.
		exists := len(l) == 0 || (len(l) == 1 && f.source.HasNamespace(l[0]))
		var answer []dns.RR
		if len(l) == 0 && state.QType() == dns.TypeSOA {
			answer = []dns.RR{soaRR(suffix, f.TTL, f.source.Serial())}
		}
		return f.reply(ctx, state, suffix, exists, answer, nil)
	}
	svc := f.source.Service(n.namespace, n.service)
	if svc == nil {
		return f.reply(ctx, state, suffix, false, nil, nil)
	}
	q := fedQuery{n: n, owner: state.QName(), suffix: suffix, place: where, qtype: state.QType(), ttl: f.TTL}
	if svc.PreferClose {
		q.client = f.clientPlace(state)
	}
	answer, extra, found := answerFederation(svc, q)
	return f.reply(ctx, state, suffix, found, answer, extra)
}

func (f *Federation) serveClusterset(ctx context.Context, state request.Request) (int, error) {
	zone := f.Clusterset
	l, _ := labels(state.Name(), zone)
	n, form := parseClusterset(l)
	q := clustersetQuery{n: n, owner: state.QName(), zone: zone, qtype: state.QType(), ttl: f.TTL}
	switch form {
	case apexForm:
		var answer []dns.RR
		if q.qtype == dns.TypeSOA {
			answer = []dns.RR{soaRR(zone, f.TTL, f.source.Serial())}
		}
		return f.reply(ctx, state, zone, true, answer, nil)
	case versionForm:
		var answer []dns.RR
		if q.qtype == dns.TypeTXT {
			answer = []dns.RR{txtRR(q.owner, dnsVersionTTL, mcsSchemaVersion)}
		}
		return f.reply(ctx, state, zone, true, answer, nil)
	case svcForm:
		return f.reply(ctx, state, zone, true, nil, nil)
	case namespaceForm:
		return f.reply(ctx, state, zone, f.source.HasNamespace(n.namespace), nil, nil)
	case serviceForm, endpointForm:
		svc := f.source.Service(n.namespace, n.service)
		if svc == nil {
			return f.reply(ctx, state, zone, false, nil, nil)
		}
		if svc.PreferClose {
			q.client = f.clientPlace(state)
		}
		answer, extra, found := answerClusterset(svc, form, q)
		return f.reply(ctx, state, zone, found, answer, extra)
	}
	// invalidForm, clusterForm: no such name (2.3.4, 2.4.4).
	return f.reply(ctx, state, zone, false, nil, nil)
}

func (f *Federation) servePTR(ctx context.Context, state request.Request) (int, error) {
	ip, err := netip.ParseAddr(dnsutil.ExtractAddressFromReverse(state.Name()))
	if err == nil {
		q := clustersetQuery{owner: state.QName(), zone: f.Clusterset, qtype: dns.TypePTR, ttl: f.TTL}
		if answer := reverseTargets(f.source.ByAddr(ip), ip.Unmap(), q); len(answer) > 0 {
			return f.reply(ctx, state, "", true, answer, nil)
		}
	}
	if zone := plugin.Zones(f.ReverseZones).Matches(state.Name()); zone != "" {
		return f.reply(ctx, state, zone, false, nil, nil)
	}
	return plugin.NextOrFailure(f.Name(), f.Next, ctx, state.W, state.Req)
}

// reply writes an authoritative answer: NXDOMAIN when the name does not
// exist, NODATA when it has no record of the type asked, each with the
// zone's SOA in the authority section.
func (f *Federation) reply(ctx context.Context, state request.Request, zone string, exists bool, answer, extra []dns.RR) (int, error) {
	if !exists {
		if f.Fall.Through(state.Name()) {
			return plugin.NextOrFailure(f.Name(), f.Next, ctx, state.W, state.Req)
		}
		if !f.source.HasSynced() {
			// Resolvers retry a SERVFAIL instead of caching a wrong NXDOMAIN.
			return dns.RcodeServerFailure, nil
		}
	}
	rcode := dns.RcodeSuccess
	if !exists {
		rcode = dns.RcodeNameError
	}
	m := new(dns.Msg)
	m.SetRcode(state.Req, rcode)
	m.Authoritative = true
	m.Answer, m.Extra = answer, extra
	if len(answer) == 0 && zone != "" {
		m.Ns = []dns.RR{soaRR(zone, f.TTL, f.source.Serial())}
	}
	if err := state.W.WriteMsg(m); err != nil {
		return dns.RcodeServerFailure, err
	}
	return rcode, nil
}
