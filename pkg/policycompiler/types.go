package policycompiler

import (
	"net/netip"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

// compiledRule is a rule as the compiler keeps it: the rule it hands out,
// plus what orders and digests it.
type compiledRule struct {
	policyrules.CompiledRule
	// split orders the rules one policy rule becomes when its named ports
	// resolve to different numbers on different peers.
	split int32
	hash  uint64
}

// NamedPort is a port of a Pod or an ExternalEntity that rules can match by
// name.
type NamedPort struct {
	Name     string
	Protocol policyrules.Protocol
	Port     int32
}

// Namespace is the part of a Kubernetes Namespace the compiler needs.
type Namespace struct {
	Name   string
	Labels map[string]string
}

// Pod is the part of a local Kubernetes Pod the compiler needs: Pods are
// peers of rules, never enforcement points.
type Pod struct {
	Namespace      string
	Name           string
	Labels         map[string]string
	ServiceAccount string
	IPs            []netip.Addr
	Ports          []NamedPort
}
