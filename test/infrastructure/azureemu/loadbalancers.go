package azureemu

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Internal load balancers: a frontend private IP in a VNet's subnet,
// load-balancing rules on it and one backend pool of network interfaces,
// listed as Microsoft.Network/loadBalancers.

type loadBalancer struct {
	id, name, location string
	subnetID, ip       string
	rules              []LBRule
	tags               map[string]string
	// backends are the ids of the NICs in the backend pool.
	backends []string
}

// LoadBalancerSpec describes an internal load balancer to add.
type LoadBalancerSpec struct {
	// VNetID places the frontend; required.
	VNetID string
	// Name of the load balancer; required.
	Name string
	// ResourceGroup; default the VNet's.
	ResourceGroup string
	// Rules are the load-balancing rules of the one frontend.
	Rules []LBRule
	// Backends are the network interfaces (ids) of the backend pool
	// "backend" every rule sends to; their IP configurations list it.
	Backends []string
	Tags     map[string]string
}

// LBRule is a load-balancing rule: Tcp, Udp or All, on a frontend port,
// to a backend port (default the same).
type LBRule struct {
	Name        string
	Protocol    string
	Port        int32
	BackendPort int32
}

// AddLoadBalancer adds an internal load balancer with one private frontend
// and returns its id and frontend address.
func (s *Server) AddLoadBalancer(spec LoadBalancerSpec) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vn := s.vnets[strings.ToLower(spec.VNetID)]
	if vn == nil || spec.Name == "" {
		return "", "", fmt.Errorf("VNet %q not found or load balancer name empty", spec.VNetID)
	}
	id := s.resourceID(cmp.Or(spec.ResourceGroup, resourceGroupOf(vn.id)), vn.location, "Microsoft.Network/loadBalancers", spec.Name)
	if s.lbs[strings.ToLower(id)] != nil {
		return "", "", fmt.Errorf("load balancer %s exists", id)
	}
	var backends []*nic
	for _, b := range spec.Backends {
		n := s.nics[strings.ToLower(b)]
		if n == nil || vnetOfSubnetID(n.subnetID) != strings.ToLower(vn.id) {
			return "", "", fmt.Errorf("backend %q is not a network interface of VNet %s", b, vn.id)
		}
		backends = append(backends, n)
	}
	ip, err := vn.allocIP()
	if err != nil {
		return "", "", err
	}
	lb := &loadBalancer{id: id, name: spec.Name, location: vn.location, subnetID: vn.subnetID, ip: ip,
		rules: slices.Clone(spec.Rules), tags: maps.Clone(spec.Tags)}
	for _, n := range backends {
		lb.backends = append(lb.backends, n.id)
		n.pools = append(n.pools, lb.poolID())
	}
	s.lbs[strings.ToLower(id)] = lb
	return id, ip, nil
}

func (lb *loadBalancer) poolID() string { return lb.id + "/backendAddressPools/backend" }

// vnetOfSubnetID is the lowercased VNet id of a subnet id.
func vnetOfSubnetID(subnet string) string {
	before, _, _ := strings.Cut(strings.ToLower(subnet), "/subnets/")
	return before
}

type lbJSON struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Location string            `json:"location"`
	Tags     map[string]string `json:"tags,omitempty"`
	SKU      struct {
		Name string `json:"name"`
	} `json:"sku"`
	Properties struct {
		FrontendIPConfigurations []lbFrontendJSON `json:"frontendIPConfigurations"`
		BackendAddressPools      []lbPoolJSON     `json:"backendAddressPools"`
		LoadBalancingRules       []lbRuleJSON     `json:"loadBalancingRules"`
		ProvisioningState        string           `json:"provisioningState"`
	} `json:"properties"`
}

type lbFrontendJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Properties struct {
		PrivateIPAddress          string `json:"privateIPAddress"`
		PrivateIPAllocationMethod string `json:"privateIPAllocationMethod"`
		Subnet                    idRef  `json:"subnet"`
	} `json:"properties"`
}

type lbPoolJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Properties struct {
		BackendIPConfigurations []idRef `json:"backendIPConfigurations"`
	} `json:"properties"`
}

type lbRuleJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Properties struct {
		FrontendIPConfiguration idRef  `json:"frontendIPConfiguration"`
		BackendAddressPool      *idRef `json:"backendAddressPool,omitempty"`
		Protocol                string `json:"protocol"`
		FrontendPort            int32  `json:"frontendPort"`
		BackendPort             int32  `json:"backendPort"`
	} `json:"properties"`
}

func (s *Server) lbItems() []listItem {
	out := make([]listItem, 0, len(s.lbs))
	for key, lb := range s.lbs {
		doc := lbJSON{ID: lb.id, Name: lb.name, Type: "Microsoft.Network/loadBalancers", Location: lb.location, Tags: lb.tags}
		doc.SKU.Name = "Standard"
		var fe lbFrontendJSON
		fe.ID, fe.Name = lb.id+"/frontendIPConfigurations/frontend", "frontend"
		fe.Properties.PrivateIPAddress, fe.Properties.PrivateIPAllocationMethod, fe.Properties.Subnet = lb.ip, "Dynamic", idRef{ID: lb.subnetID}
		doc.Properties.FrontendIPConfigurations = []lbFrontendJSON{fe}
		var pool lbPoolJSON
		pool.ID, pool.Name = lb.poolID(), "backend"
		pool.Properties.BackendIPConfigurations = []idRef{}
		for _, b := range lb.backends {
			pool.Properties.BackendIPConfigurations = append(pool.Properties.BackendIPConfigurations, idRef{ID: b + "/ipConfigurations/" + ipConfigName})
		}
		doc.Properties.BackendAddressPools = []lbPoolJSON{pool}
		doc.Properties.LoadBalancingRules = []lbRuleJSON{}
		for _, r := range lb.rules {
			var rj lbRuleJSON
			rj.ID, rj.Name = lb.id+"/loadBalancingRules/"+r.Name, r.Name
			rj.Properties.FrontendIPConfiguration = idRef{ID: fe.ID}
			rj.Properties.BackendAddressPool = &idRef{ID: pool.ID}
			rj.Properties.Protocol, rj.Properties.FrontendPort, rj.Properties.BackendPort = r.Protocol, r.Port, cmp.Or(r.BackendPort, r.Port)
			doc.Properties.LoadBalancingRules = append(doc.Properties.LoadBalancingRules, rj)
		}
		doc.Properties.ProvisioningState = "Succeeded"
		out = append(out, listItem{key: key, doc: doc})
	}
	return out
}
