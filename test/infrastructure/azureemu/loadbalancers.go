package azureemu

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Internal load balancers: a frontend private IP in a VNet's subnet and
// load-balancing rules on it, listed as Microsoft.Network/loadBalancers.

type loadBalancer struct {
	id, name, location string
	subnetID, ip       string
	rules              []LBRule
	tags               map[string]string
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
	Tags  map[string]string
}

// LBRule is a load-balancing rule: Tcp, Udp or All, on a frontend port.
type LBRule struct {
	Name     string
	Protocol string
	Port     int32
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
	ip, err := vn.allocIP()
	if err != nil {
		return "", "", err
	}
	s.lbs[strings.ToLower(id)] = &loadBalancer{id: id, name: spec.Name, location: vn.location, subnetID: vn.subnetID, ip: ip,
		rules: slices.Clone(spec.Rules), tags: maps.Clone(spec.Tags)}
	return id, ip, nil
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

type lbRuleJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Properties struct {
		FrontendIPConfiguration idRef  `json:"frontendIPConfiguration"`
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
		doc.Properties.LoadBalancingRules = []lbRuleJSON{}
		for _, r := range lb.rules {
			var rj lbRuleJSON
			rj.ID, rj.Name = lb.id+"/loadBalancingRules/"+r.Name, r.Name
			rj.Properties.FrontendIPConfiguration = idRef{ID: fe.ID}
			rj.Properties.Protocol, rj.Properties.FrontendPort, rj.Properties.BackendPort = r.Protocol, r.Port, r.Port
			doc.Properties.LoadBalancingRules = append(doc.Properties.LoadBalancingRules, rj)
		}
		doc.Properties.ProvisioningState = "Succeeded"
		out = append(out, listItem{key: key, doc: doc})
	}
	return out
}
