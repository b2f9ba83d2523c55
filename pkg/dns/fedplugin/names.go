package fedplugin

import (
	"strings"

	"github.com/miekg/dns"
)

// name is a parsed query name under <federationID>.svc.<domain> or under
// the clusterset zone. Every field is lower case.
type name struct {
	// port and proto are the SRV labels without their underscores, "" when
	// the name has none.
	port, proto string
	service     string
	namespace   string
	// cluster is the source cluster of a per-cluster federation name, or
	// of a per-endpoint clusterset name.
	cluster string
	// host is the endpoint label of a per-endpoint clusterset name.
	host string
}

// srv tells whether the name carries _port._proto labels.
func (n name) srv() bool { return n.port != "" }

// labels splits the part of qname before suffix (both lower case, fully
// qualified) into labels; ok is false when qname is not under suffix.
func labels(qname, suffix string) (l []string, ok bool) {
	if qname == suffix {
		return nil, true
	}
	if !strings.HasSuffix(qname, "."+suffix) {
		return nil, false
	}
	return dns.SplitDomainName(qname[:len(qname)-len(suffix)-1]), true
}

// parseFederation parses the labels before <federationID>.svc.<domain>:
//
//	<svc>.<ns>                       the federated Service
//	<svc>.<ns>.<clusterID>           its endpoints in one source cluster
//	_<port>._<proto>.<svc>.<ns>[.<clusterID>]  SRV
//
// A cluster ID may hold dots. ok is false for any other shape.
func parseFederation(l []string) (n name, ok bool) {
	if len(l) >= 2 && isUnderscored(l[0]) && isUnderscored(l[1]) {
		n.port, n.proto = l[0][1:], l[1][1:]
		l = l[2:]
	}
	if len(l) < 2 {
		return n, false
	}
	for _, s := range l {
		if isUnderscored(s) {
			return n, false
		}
	}
	n.service, n.namespace = l[0], l[1]
	if len(l) > 2 {
		n.cluster = strings.Join(l[2:], ".")
	}
	return n, true
}

// clustersetForm is the shape of a name under the clusterset zone.
type clustersetForm int

const (
	// invalidForm is a name the Multicluster DNS specification has no
	// record for: NXDOMAIN.
	invalidForm clustersetForm = iota
	// apexForm is <zone>.
	apexForm
	// versionForm is dns-version.<zone>.
	versionForm
	// svcForm is svc.<zone>, which holds every Service name.
	svcForm
	// namespaceForm is <ns>.svc.<zone>.
	namespaceForm
	// serviceForm is <svc>.<ns>.svc.<zone>, or with n.srv()
	// _<port>._<proto>.<svc>.<ns>.svc.<zone>.
	serviceForm
	// clusterForm is <clusterid>.<svc>.<ns>.svc.<zone>, which has no
	// records (specification 2.3.4, 2.4.4).
	clusterForm
	// endpointForm is <host>.<clusterid>.<svc>.<ns>.svc.<zone>; a cluster
	// ID may hold dots.
	endpointForm
)

// parseClusterset parses the labels before the clusterset zone, e.g.
// ["web", "demo", "svc"].
func parseClusterset(l []string) (name, clustersetForm) {
	switch {
	case len(l) == 0:
		return name{}, apexForm
	case len(l) == 1 && l[0] == "dns-version":
		return name{}, versionForm
	case l[len(l)-1] != "svc":
		return name{}, invalidForm
	}
	l = l[:len(l)-1]
	var n name
	if len(l) == 4 && isUnderscored(l[0]) && isUnderscored(l[1]) {
		n.port, n.proto = l[0][1:], l[1][1:]
		l = l[2:]
	}
	for _, s := range l {
		if isUnderscored(s) {
			return name{}, invalidForm
		}
	}
	switch {
	case len(l) == 0:
		return n, svcForm
	case len(l) == 1:
		return name{namespace: l[0]}, namespaceForm
	}
	n.service, n.namespace = l[len(l)-2], l[len(l)-1]
	switch {
	case len(l) == 2:
		return n, serviceForm
	case n.srv():
		return name{}, invalidForm
	case len(l) == 3:
		return name{cluster: l[0], service: n.service, namespace: n.namespace}, clusterForm
	}
	n.host, n.cluster = l[0], strings.Join(l[1:len(l)-2], ".")
	return n, endpointForm
}

func isUnderscored(s string) bool { return len(s) > 1 && s[0] == '_' }
