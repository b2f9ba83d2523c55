package translate

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/networks"
)

// port is one (protocol, port) pair an address is offered on.
type port struct {
	protocol corev1.Protocol
	number   int32
}

func comparePorts(a, b port) int {
	return cmp.Or(cmp.Compare(a.protocol, b.protocol), cmp.Compare(a.number, b.number))
}

// portSet is a sorted set of ports; its key names it ("tcp80-tcp31080").
type portSet struct {
	key   string
	ports []port
	addrs []netip.Addr
}

// offers are the addresses of a federated Service and the ports each is
// offered on: the cluster-set IP on the Service ports, each exporter's
// ready addresses on the ports of their slice.
type offers struct {
	byAddr map[netip.Addr][]port
	// origin is the exporter of each address ("" for the cluster-set IP).
	origin map[netip.Addr]string
	// network is the network of an exporter's address its export names
	// (the slice's network.antreaplus.io/name annotation), if any.
	network  map[netip.Addr]string
	clusters map[string]bool // exporters with a ready address
	remote   int             // ready exporter addresses
}

func collectOffers(svc ServiceInput) offers {
	o := offers{byAddr: map[netip.Addr][]port{}, origin: map[netip.Addr]string{}, network: map[netip.Addr]string{}, clusters: map[string]bool{}}
	if imp := svc.Import; imp != nil && imp.Spec.Type != mcsv1beta1.Headless {
		var ports []port
		for _, p := range imp.Spec.Ports {
			ports = append(ports, port{protocol: protocolOr(&p.Protocol), number: p.Port})
		}
		for _, ip := range imp.Spec.IPs {
			o.add(ip, ports)
		}
	}
	for i := range svc.Slices {
		s := &svc.Slices[i]
		var ports []port
		for _, p := range s.Ports {
			if p.Port != nil && *p.Port > 0 {
				ports = append(ports, port{protocol: protocolOr(p.Protocol), number: *p.Port})
			}
		}
		if len(ports) == 0 {
			continue
		}
		for _, ep := range s.Endpoints {
			if !ready(ep) {
				continue
			}
			for _, a := range ep.Addresses {
				if !o.add(a, ports) {
					continue
				}
				o.remote++
				if c := s.Labels[mcsv1beta1.LabelSourceCluster]; c != "" {
					o.clusters[c] = true
					o.origin[netip.MustParseAddr(a).Unmap()] = c
				}
				if n := s.Annotations[federationv1alpha1.LabelNetwork]; n != "" {
					o.network[netip.MustParseAddr(a).Unmap()] = n
				}
			}
		}
	}
	return o
}

func (o *offers) add(ip string, ports []port) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil || len(ports) == 0 {
		return false
	}
	a = a.Unmap()
	o.byAddr[a] = append(o.byAddr[a], ports...)
	return true
}

func ready(ep discoveryv1.Endpoint) bool {
	return ep.Conditions.Ready == nil || *ep.Conditions.Ready
}

func protocolOr(p *corev1.Protocol) corev1.Protocol {
	if p == nil || *p == "" {
		return corev1.ProtocolTCP
	}
	return *p
}

// portSets groups the offered addresses by the set of ports each is
// offered on, sorted by key.
func (o *offers) portSets() []portSet {
	byKey := map[string]*portSet{}
	for a, ports := range o.byAddr {
		slices.SortFunc(ports, comparePorts)
		ports = slices.Compact(ports)
		key := portsKey(ports)
		ps := byKey[key]
		if ps == nil {
			ps = &portSet{key: key, ports: ports}
			byKey[key] = ps
		}
		ps.addrs = append(ps.addrs, a)
	}
	out := make([]portSet, 0, len(byKey))
	for _, ps := range byKey {
		ps.addrs = normalize(ps.addrs)
		out = append(out, *ps)
	}
	slices.SortFunc(out, func(a, b portSet) int { return cmp.Compare(a.key, b.key) })
	return out
}

func portsKey(ports []port) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = strings.ToLower(string(p.protocol)) + strconv.Itoa(int(p.number))
	}
	return strings.Join(parts, "-")
}

// rulePorts are the ports of the rule of a port set.
func rulePorts(ports []port) []antreav1beta1.NetworkPolicyPort {
	out := make([]antreav1beta1.NetworkPolicyPort, len(ports))
	for i, p := range ports {
		proto, n := p.protocol, intstr.FromInt32(p.number)
		out[i] = antreav1beta1.NetworkPolicyPort{Protocol: &proto, Port: &n}
	}
	return out
}

// serviceSource resolves the federated Service of toServices entry j of
// egress rule i into one port set per distinct set of offered ports, each
// with the group peers of its addresses. A Service that offers nothing
// yet is one port set without ports whose Group is empty.
func (t *translator) serviceSource(i, j int, id string, ps antreav1beta1.PeerService) []servicePortSet {
	key := types.NamespacedName{Namespace: ps.Namespace, Name: ps.Name}
	if key.Namespace == "" {
		key.Namespace = t.policy.Namespace
	}
	svc, imported := t.in.Services[key]
	o := collectOffers(svc)
	unusable := t.keepReachable(&o)
	sets := o.portSets()
	src := policyv1alpha1.RemoteSourceStatus{Rule: id, Kind: KindFederatedService, Name: key.String(),
		Resolved: o.remote > 0, Clusters: sortedKeys(o.clusters), Addresses: int32(len(o.byAddr)), Unusable: unusable}
	src.NotExportedHere = t.notExportedHere(func(w *federationv1alpha1.WithheldExports) []federationv1alpha1.WithheldExport { return w.Services },
		func(w *federationv1alpha1.WithheldExports) int32 { return w.MoreServices }, []string{key.Namespace}, key.Name)
	switch {
	case o.remote == 0 && len(unusable) > 0:
		src.Message = fmt.Sprintf("Service %s is exported, but no exporter offers an address usable here: see unusable", key)
	case (!imported || svc.Import == nil) && len(src.NotExportedHere) > 0:
		src.Message = fmt.Sprintf("Service %s is not exported to this member: see notExportedHere", key)
	case !imported || svc.Import == nil:
		src.Message = fmt.Sprintf("no member exports Service %s yet: export it with 'antreaplus service export %s -n %s' in the member that runs it",
			key, key.Name, key.Namespace)
	case o.remote == 0:
		src.Message = fmt.Sprintf("Service %s is imported but no exporter offers a ready address yet: see 'antreaplus service list'", key)
	}
	t.report.RemoteSources = append(t.report.RemoteSources, src)
	if len(sets) == 0 {
		sets = []portSet{{key: "none"}}
	}
	out := make([]servicePortSet, 0, len(sets))
	for _, s := range sets {
		sp := servicePortSet{key: s.key, ports: rulePorts(s.ports)}
		for k, part := range chunks(s.addrs) {
			sp.peers = append(sp.peers, antreav1beta1.NetworkPolicyPeer{Group: t.addGroup(serviceGroupName(t.policy.Name, i, j, s.key, k), part)})
		}
		out = append(out, sp)
	}
	return out
}

// servicePortSet is one port set of a federated Service, as rule ports
// and group peers.
type servicePortSet struct {
	key   string
	ports []antreav1beta1.NetworkPolicyPort
	peers []antreav1beta1.NetworkPolicyPeer
}

// keepReachable leaves in o only the addresses the translation's points
// reach: the cluster-set IP is an address of this member's cluster
// network, an exporter's address in a private range one of the network
// its export names (else the exporter's cluster network,
// cluster.<clusterID>), any other public. It returns why the others were
// left out.
func (t *translator) keepReachable(o *offers) []string {
	var lines []string
	o.remote, o.clusters = 0, map[string]bool{}
	addrs := make([]netip.Addr, 0, len(o.byAddr))
	for a := range o.byAddr {
		addrs = append(addrs, a)
	}
	for _, a := range normalize(addrs) {
		c, remote := o.origin[a]
		e := networks.Entity{Name: "the cluster-set IP " + a.String(), Network: t.in.clusterNetwork()}
		if remote {
			network := cmp.Or(o.network[a], federationv1alpha1.ClusterNetworkPrefix+c)
			e = networks.Entity{Name: fmt.Sprintf("exporter %s's address %s", c, a), Network: network}
		}
		kind := networks.Public
		if !remote || networks.IsPrivate(a) {
			kind = networks.Private
		}
		e.Addresses = []networks.Address{{IP: a, Kind: kind, Network: e.Network}}
		vd := t.view.Decide(&e, networks.Destination)
		if len(vd.Addresses) == 0 {
			delete(o.byAddr, a)
			lines = append(lines, t.at()+vd.Reason())
			continue
		}
		if remote {
			o.remote++
			o.clusters[c] = true
		}
	}
	return capLines(lines)
}
