package serviceexport

import (
	"fmt"
	"strings"

	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// mergePorts is the union of the exports' ports, in precedence order. A
// port whose name is taken with other properties, or whose protocol and
// number are taken under another name, is left out and reported; so is
// every port of the union that some export does not have at all: the
// import's ports are conflict-free only when every export has the same.
func mergePorts(exports []Export, c *conflicts) []mcsv1beta1.ServicePort {
	var out []mcsv1beta1.ServicePort
	byName := map[string]int{}
	owner := map[string]string{}
	byNumber := map[string]string{}
	for _, e := range exports {
		for _, p := range e.Ports {
			number := portNumber(p)
			if i, ok := byName[p.Name]; ok {
				if q := out[i]; !samePort(p, q) {
					c.add(mcsv1beta1.ServiceExportReasonPortConflict, "port %q is %s in %s but %s in %s (oldest export), which is used",
						p.Name, describePort(p), e.Cluster, describePort(q), owner[p.Name])
				}
				continue
			}
			if other, ok := byNumber[number]; ok {
				c.add(mcsv1beta1.ServiceExportReasonPortConflict, "port %s is named %q in %s but %q in %s (oldest export), which is used",
					number, p.Name, e.Cluster, other, owner[other])
				continue
			}
			byName[p.Name], owner[p.Name], byNumber[number] = len(out), e.Cluster, p.Name
			out = append(out, p)
		}
	}
	reportMissingPorts(exports, out, c)
	return out
}

// reportMissingPorts reports each port of the union that an export has
// neither under its name nor under its number (a port it has otherwise is
// reported by mergePorts).
func reportMissingPorts(exports []Export, union []mcsv1beta1.ServicePort, c *conflicts) {
	for _, q := range union {
		var with, without []string
		for _, e := range exports {
			switch portIn(e.Ports, q) {
			case 1:
				with = append(with, e.Cluster)
			case 0:
				without = append(without, e.Cluster)
			}
		}
		if len(without) > 0 {
			c.add(mcsv1beta1.ServiceExportReasonPortConflict, "port %q %s is exported by %s but not by %s: the import has it",
				q.Name, describePort(q), strings.Join(with, ", "), strings.Join(without, ", "))
		}
	}
}

// portIn is 1 when ports hold q, -1 when they hold a port of its name or
// number that differs, 0 when neither.
func portIn(ports []mcsv1beta1.ServicePort, q mcsv1beta1.ServicePort) int {
	found := 0
	for _, p := range ports {
		switch {
		case p.Name == q.Name && samePort(p, q):
			return 1
		case p.Name == q.Name || portNumber(p) == portNumber(q):
			found = -1
		}
	}
	return found
}

func samePort(p, q mcsv1beta1.ServicePort) bool {
	return q.Port == p.Port && q.Protocol == p.Protocol && ptr.Deref(q.AppProtocol, "") == ptr.Deref(p.AppProtocol, "")
}

func portNumber(p mcsv1beta1.ServicePort) string {
	return fmt.Sprintf("%d/%s", p.Port, p.Protocol)
}

func describePort(p mcsv1beta1.ServicePort) string {
	s := portNumber(p)
	if p.AppProtocol != nil {
		s += " (" + *p.AppProtocol + ")"
	}
	return s
}
