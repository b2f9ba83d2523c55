package federation

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

// clustersetForm is the shape of a name under svc.<clustersetzone>.
type clustersetForm int

const (
	// otherForm is any name the plugin leaves to the kubernetes plugin.
	otherForm clustersetForm = iota
	// serviceForm is <svc>.<ns>.svc.<zone>.
	serviceForm
	// endpointForm is <host>.<clusterid>.<svc>.<ns>.svc.<zone>.
	endpointForm
)

// parseClusterset parses the labels before the clusterset zone, e.g.
// ["web", "demo", "svc"], for the two shapes the plugin answers itself.
func parseClusterset(l []string) (name, clustersetForm) {
	if len(l) < 3 || l[len(l)-1] != "svc" {
		return name{}, otherForm
	}
	l = l[:len(l)-1]
	for _, s := range l {
		if isUnderscored(s) {
			return name{}, otherForm
		}
	}
	switch len(l) {
	case 2:
		return name{service: l[0], namespace: l[1]}, serviceForm
	case 4:
		return name{host: l[0], cluster: l[1], service: l[2], namespace: l[3]}, endpointForm
	}
	return name{}, otherForm
}

func isUnderscored(s string) bool { return len(s) > 1 && s[0] == '_' }
