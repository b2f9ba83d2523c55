package gather

import (
	"fmt"
	"net/netip"
	"strings"
)

// Spec is a source or destination as given on the command line:
// [MEMBER:]vm/NAME, service/NAME, entity/NAMESPACE/NAME, pod/NAMESPACE/NAME,
// remote/NAME, an IP address, or a federated Service's name
// (NAME.NAMESPACE.svc.clusterset.local).
type Spec struct {
	Member, Kind, Namespace, Name string
	IP                            netip.Addr
}

// Spec kinds.
const (
	KindVM      = "vm"
	KindService = "service"
	KindEntity  = "entity"
	KindRemote  = "remote"
	KindPod     = "pod"
	KindIP      = "ip"
	KindDNS     = "dns"
)

// ParseSpec parses a source or destination.
func ParseSpec(s string) (Spec, error) {
	var sp Spec
	rest := s
	if before, after, ok := strings.Cut(s, ":"); ok && !strings.Contains(before, "/") && net(after) {
		sp.Member, rest = before, after
	}
	if ip, err := netip.ParseAddr(strings.TrimPrefix(rest, "ip/")); err == nil {
		sp.Kind, sp.IP = KindIP, ip
		return sp, nil
	}
	kind, name, ok := strings.Cut(rest, "/")
	switch {
	case !ok && strings.HasSuffix(strings.TrimSuffix(rest, "."), ".svc.clusterset.local"):
		parts := strings.Split(strings.TrimSuffix(rest, "."), ".")
		sp.Kind, sp.Name, sp.Namespace = KindDNS, parts[0], parts[1]
		return sp, nil
	case !ok:
		return sp, fmt.Errorf("%q: want [MEMBER:]vm/NAME, service/NAME, entity/NAMESPACE/NAME, pod/NAMESPACE/NAME, remote/NAME, an IP address or NAME.NAMESPACE.svc.clusterset.local", s)
	}
	sp.Kind = kind
	switch kind {
	case KindVM, KindService, KindRemote:
		sp.Name = name
	case KindEntity, KindPod:
		ns, n, ok := strings.Cut(name, "/")
		if !ok {
			return sp, fmt.Errorf("%q: %s is %s/NAMESPACE/NAME", s, kind, kind)
		}
		sp.Namespace, sp.Name = ns, n
	default:
		return sp, fmt.Errorf("%q: unknown kind %q (vm, service, entity, pod, remote, ip)", s, kind)
	}
	if sp.Name == "" {
		return sp, fmt.Errorf("%q: no name", s)
	}
	return sp, nil
}

// net reports whether s, after a "MEMBER:", looks like a spec (not the
// rest of an IPv6 address).
func net(s string) bool {
	return strings.Contains(s, "/") || strings.HasSuffix(strings.TrimSuffix(s, "."), ".svc.clusterset.local") ||
		func() bool { _, err := netip.ParseAddr(s); return err == nil }()
}
