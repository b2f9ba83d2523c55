package policycompiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/yaml"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// yamlPod is the part of a Kubernetes Pod manifest that tests write.
type yamlPod struct {
	Metadata struct {
		Namespace string            `json:"namespace"`
		Name      string            `json:"name"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		ServiceAccountName string `json:"serviceAccountName"`
		Containers         []struct {
			Ports []struct {
				Name          string `json:"name"`
				Protocol      string `json:"protocol"`
				ContainerPort int32  `json:"containerPort"`
			} `json:"ports"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		PodIPs []struct {
			IP string `json:"ip"`
		} `json:"podIPs"`
	} `json:"status"`
}

func (y *yamlPod) pod() (*Pod, error) {
	p := &Pod{Namespace: y.Metadata.Namespace, Name: y.Metadata.Name, Labels: y.Metadata.Labels, ServiceAccount: y.Spec.ServiceAccountName}
	for _, ip := range y.Status.PodIPs {
		addr, err := netip.ParseAddr(ip.IP)
		if err != nil {
			return nil, err
		}
		p.IPs = append(p.IPs, addr)
	}
	for _, c := range y.Spec.Containers {
		for _, port := range c.Ports {
			protocol := policyrules.Protocol(port.Protocol)
			if protocol == "" {
				protocol = policyrules.ProtocolTCP
			}
			p.Ports = append(p.Ports, NamedPort{Name: port.Name, Protocol: protocol, Port: port.ContainerPort})
		}
	}
	return p, nil
}

type yamlNamespace struct {
	Metadata struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
}

// decodeObjects decodes YAML documents into the objects Upsert takes,
// choosing the type by kind.
func decodeObjects(t *testing.T, text string) []any {
	t.Helper()
	decoder := yaml.NewYAMLOrJSONDecoder(strings.NewReader(text), 4096)
	var objs []any
	for {
		var raw json.RawMessage
		err := decoder.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("decoding YAML: %v", err)
		}
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		obj, err := decodeObject(raw)
		if err != nil {
			t.Fatalf("decoding %s: %v", raw, err)
		}
		objs = append(objs, obj)
	}
}

func decodeObject(raw json.RawMessage) (any, error) {
	var meta struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, err
	}
	var into any
	switch meta.Kind {
	case "ExternalEntity":
		into = &antreav1alpha2.ExternalEntity{}
	case "NetworkPolicy":
		into = &antreav1beta1.NetworkPolicy{}
	case "ClusterNetworkPolicy":
		into = &antreav1beta1.ClusterNetworkPolicy{}
	case "Group":
		into = &antreav1beta1.Group{}
	case "ClusterGroup":
		into = &antreav1beta1.ClusterGroup{}
	case "Tier":
		into = &antreav1beta1.Tier{}
	case "Pod":
		var y yamlPod
		if err := json.Unmarshal(raw, &y); err != nil {
			return nil, err
		}
		return y.pod()
	case "Namespace":
		var y yamlNamespace
		if err := json.Unmarshal(raw, &y); err != nil {
			return nil, err
		}
		return &Namespace{Name: y.Metadata.Name, Labels: y.Metadata.Labels}, nil
	default:
		return nil, fmt.Errorf("unknown kind %q", meta.Kind)
	}
	return into, json.Unmarshal(raw, into)
}

// renderVerdicts evaluates packets written as
// "ingress|egress IP PROTOCOL [PORT|TYPE/CODE]" against an endpoint's rules.
func renderVerdicts(t *testing.T, c *Compiler, endpoint string, packets []string) []string {
	t.Helper()
	rules, ok := c.Rules(endpoint)
	if !ok {
		return []string{"no such endpoint"}
	}
	var out []string
	for _, line := range packets {
		p := parsePacket(t, line)
		d := policyrules.Evaluate(rules.Rules, p)
		by := "by default"
		if d.Rule != nil {
			by = "by " + d.Rule.Policy.String() + " " + d.Rule.RuleName
		}
		if d.Passed {
			by += " after Pass"
		}
		out = append(out, fmt.Sprintf("%s -> %s %s", line, d.Action, by))
	}
	return out
}

func parsePacket(t *testing.T, line string) policyrules.Packet {
	t.Helper()
	f := strings.Fields(line)
	if len(f) < 3 {
		t.Fatalf("packet %q: want DIRECTION IP PROTOCOL [PORT|TYPE/CODE]", line)
	}
	p := policyrules.Packet{Direction: policyrules.DirectionIngress, Peer: netip.MustParseAddr(f[1]), Protocol: policyrules.Protocol(strings.ToUpper(f[2]))}
	if f[0] == "egress" {
		p.Direction = policyrules.DirectionEgress
	}
	if len(f) < 4 {
		return p
	}
	if p.Protocol == policyrules.ProtocolICMP {
		typ, code, _ := strings.Cut(f[3], "/")
		p.ICMPType, p.ICMPCode = int32(atoi(t, typ)), int32(atoi(t, code))
		return p
	}
	port, src, _ := strings.Cut(f[3], "<-")
	p.Port = int32(atoi(t, port))
	if src != "" {
		p.SourcePort = int32(atoi(t, src))
	}
	return p
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}
