package azureemu

import (
	"fmt"
	"slices"
	"strings"
)

// This file is the Go API to shape and inspect security groups in tests,
// beside ARM: it bypasses authentication, faults and call counters.

// AddSecurityGroup adds an empty network security group and returns its
// id; rg defaults to rg-<location>.
func (s *Server) AddSecurityGroup(rg, location, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.resourceID(rg, location, "Microsoft.Network/networkSecurityGroups", name)
	if s.nsgs[strings.ToLower(id)] != nil {
		return "", fmt.Errorf("NSG %s exists", id)
	}
	s.nsgs[strings.ToLower(id)] = &nsg{id: id, name: name, location: location}
	return id, nil
}

// AddApplicationSecurityGroup adds an application security group and
// returns its id; rg defaults to rg-<location>.
func (s *Server) AddApplicationSecurityGroup(rg, location, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.resourceID(rg, location, "Microsoft.Network/applicationSecurityGroups", name)
	if s.asgs[strings.ToLower(id)] != nil {
		return "", fmt.Errorf("ASG %s exists", id)
	}
	s.asgs[strings.ToLower(id)] = &asg{id: id, name: name, location: location}
	return id, nil
}

// SetInterfaceSecurity sets the NSG (empty: none) and the ASGs of a
// network interface, as a change by hand would.
func (s *Server) SetInterfaceSecurity(nicID, nsgID string, asgIDs []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nics[strings.ToLower(nicID)]
	if n == nil {
		return fmt.Errorf("network interface %s not found", nicID)
	}
	n.nsg, n.asgs = nsgID, slices.Clone(asgIDs)
	return nil
}

// InterfaceSecurity returns the NSG id (empty: none) and the ASG ids of a
// network interface.
func (s *Server) InterfaceSecurity(nicID string) (string, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nics[strings.ToLower(nicID)]
	if n == nil {
		return "", nil, fmt.Errorf("network interface %s not found", nicID)
	}
	return n.nsg, slices.Clone(n.asgs), nil
}

// SecurityGroups returns the ids of every NSG, sorted.
func (s *Server) SecurityGroups() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedIDs(s.nsgs, func(g *nsg) string { return g.id })
}

// ApplicationSecurityGroups returns the ids of every ASG, sorted.
func (s *Server) ApplicationSecurityGroups() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedIDs(s.asgs, func(a *asg) string { return a.id })
}

func sortedIDs[T any](m map[string]T, id func(T) string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, id(v))
	}
	slices.Sort(out)
	return out
}

// SecurityRules returns the rules of an NSG in priority order, one line
// each: "Inbound 100 Allow Tcp 80 10.0.0.0/8 -> web", with ASGs by name
// and lists joined by commas.
func (s *Server) SecurityRules(nsgID string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.nsgs[strings.ToLower(nsgID)]
	if g == nil {
		return nil, fmt.Errorf("NSG %s not found", nsgID)
	}
	rules := slices.Clone(g.rules)
	slices.SortFunc(rules, func(a, b securityRuleJSON) int {
		if a.Properties.Direction != b.Properties.Direction {
			return strings.Compare(a.Properties.Direction, b.Properties.Direction)
		}
		return int(a.Properties.Priority - b.Properties.Priority)
	})
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		p := r.Properties
		out = append(out, fmt.Sprintf("%s %d %s %s %s %s -> %s", p.Direction, p.Priority, p.Access, p.Protocol,
			side(p.DestinationPortRange, p.DestinationPortRanges, nil),
			side(p.SourceAddressPrefix, p.SourceAddressPrefixes, p.SourceApplicationSecurityGroups),
			side(p.DestinationAddressPrefix, p.DestinationAddressPrefixes, p.DestinationApplicationSecurityGroups)))
	}
	return out, nil
}

func side(one string, many []string, asgs []idRef) string {
	parts := slices.Clone(many)
	if one != "" {
		parts = append(parts, one)
	}
	for _, a := range asgs {
		parts = append(parts, a.ID[strings.LastIndex(a.ID, "/")+1:])
	}
	return strings.Join(parts, ",")
}
