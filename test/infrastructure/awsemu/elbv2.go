package awsemu

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Elastic Load Balancing v2 API version and XML namespace.
const (
	ELBAPIVersion = "2015-12-01"
	ELBNamespace  = "http://elasticloadbalancing.amazonaws.com/doc/" + ELBAPIVersion + "/"
)

var elbHandlers = map[string]handler{
	"DescribeLoadBalancers": (*Server).describeLoadBalancers,
	"DescribeListeners":     (*Server).describeListeners,
	"DescribeTags":          (*Server).describeELBTags,
	"SetSecurityGroups":     (*Server).setSecurityGroups,
}

type loadBalancer struct {
	arn, name, dnsName string
	// typ is application or network; scheme internal or internet-facing.
	typ, scheme string
	vpcID       string
	groups      []string
	tags        map[string]string
	listeners   []listener
	// enis are the requester-managed interfaces of the load balancer, one
	// per zone.
	enis []string
}

type listener struct {
	arn      string
	protocol string
	port     int32
}

// LoadBalancerSpec describes an ELBv2 load balancer to add.
type LoadBalancerSpec struct {
	// Region, VPCID and Name; all required.
	Region, VPCID, Name string
	// Type is application (default) or network.
	Type string
	// Internal makes an internal load balancer; otherwise it is
	// internet-facing and its interfaces get public addresses.
	Internal bool
	// Listeners of the load balancer.
	Listeners []Listener
	// Zones is the number of zones, one interface each; default 2.
	Zones int
	// SecurityGroupIDs of the load balancer; an application load
	// balancer without any gets the VPC's default group, a network load
	// balancer without any has none (and can never get one).
	SecurityGroupIDs []string
	// Tags of the load balancer.
	Tags map[string]string
}

// Listener is a load balancer listener.
type Listener struct {
	// Protocol is HTTP, HTTPS, TCP, TLS, UDP or TCP_UDP.
	Protocol string
	Port     int32
}

// LoadBalancer is what AddLoadBalancer created.
type LoadBalancer struct {
	ARN, DNSName string
	// NICs are its interfaces; PrivateIPs and PublicIPs their addresses.
	NICs                  []string
	PrivateIPs, PublicIPs []string
}

// AddLoadBalancer adds a load balancer with its listeners and one
// requester-managed interface per zone, described "ELB app/<name>/<id>" (or
// "ELB net/...") as AWS describes them.
func (s *Server) AddLoadBalancer(spec LoadBalancerSpec) (LoadBalancer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(spec.Region)
	if err != nil {
		return LoadBalancer{}, err
	}
	v := reg.vpcs[spec.VPCID]
	if v == nil || spec.Name == "" {
		return LoadBalancer{}, fmt.Errorf("load balancer %q needs a name and a VPC of %s (got %q)", spec.Name, spec.Region, spec.VPCID)
	}
	typ := cmp.Or(spec.Type, "application")
	short := map[string]string{"application": "app", "network": "net"}[typ]
	if short == "" {
		return LoadBalancer{}, fmt.Errorf("load balancer type %q is not application or network", typ)
	}
	s.seq++
	id := fmt.Sprintf("%016x", s.seq)
	lb := &loadBalancer{
		arn:  fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:loadbalancer/%s/%s/%s", spec.Region, s.opts.OwnerID, short, spec.Name, id),
		name: spec.Name, typ: typ, scheme: "internet-facing", vpcID: v.id, tags: copyTags(spec.Tags),
	}
	lb.dnsName = fmt.Sprintf("%s-%s.%s.elb.amazonaws.com", spec.Name, id[8:], spec.Region)
	if spec.Internal {
		lb.scheme = "internal"
		lb.dnsName = "internal-" + lb.dnsName
	}
	lb.groups = slices.Clone(spec.SecurityGroupIDs)
	if typ == "application" && len(lb.groups) == 0 {
		lb.groups = []string{v.defaultGroup}
	}
	for n, l := range spec.Listeners {
		lb.listeners = append(lb.listeners, listener{
			arn:      fmt.Sprintf("%s/%016x", strings.Replace(lb.arn, ":loadbalancer/", ":listener/", 1), n+1),
			protocol: l.Protocol, port: l.Port,
		})
	}
	zones := spec.Zones
	if zones <= 0 {
		zones = 2
	}
	if err := s.addLBInterfaces(reg, v, lb, zones); err != nil {
		return LoadBalancer{}, err
	}
	reg.lbs[lb.arn] = lb
	return reg.lbView(lb), nil
}

// addLBInterfaces gives lb zones new interfaces, with new addresses.
func (s *Server) addLBInterfaces(reg *region, v *vpc, lb *loadBalancer, zones int) error {
	short := lb.arn[strings.Index(lb.arn, ":loadbalancer/")+len(":loadbalancer/"):]
	for range zones {
		ip, err := v.allocIP()
		if err != nil {
			return err
		}
		e := &eni{
			id: s.newID("eni"), vpcID: v.id, subnetID: v.subnetID, mac: s.newMAC(), privateIPs: []string{ip},
			groups: slices.Clone(lb.groups), tags: map[string]string{},
			description: "ELB " + short, requesterID: "amazon-elb",
		}
		if lb.typ == "network" {
			e.interfaceType = "network_load_balancer"
		}
		if lb.scheme == "internet-facing" {
			e.publicIP = s.newPublicIP()
		}
		reg.enis[e.id] = e
		lb.enis = append(lb.enis, e.id)
	}
	return nil
}

func (r *region) lbView(lb *loadBalancer) LoadBalancer {
	out := LoadBalancer{ARN: lb.arn, DNSName: lb.dnsName, NICs: slices.Clone(lb.enis)}
	for _, id := range lb.enis {
		e := r.enis[id]
		out.PrivateIPs = append(out.PrivateIPs, e.privateIPs...)
		if e.publicIP != "" {
			out.PublicIPs = append(out.PublicIPs, e.publicIP)
		}
	}
	return out
}

// ReplaceLoadBalancerInterfaces gives a load balancer new interfaces with
// new addresses, as ELB does when it scales or moves, and deletes the old.
func (s *Server) ReplaceLoadBalancerInterfaces(regionName, arn string) (LoadBalancer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, lb, err := s.loadBalancer(regionName, arn)
	if err != nil {
		return LoadBalancer{}, err
	}
	old := lb.enis
	lb.enis = nil
	if err := s.addLBInterfaces(reg, reg.vpcs[lb.vpcID], lb, len(old)); err != nil {
		return LoadBalancer{}, err
	}
	for _, id := range old {
		delete(reg.enis, id)
	}
	return reg.lbView(lb), nil
}

// DeleteLoadBalancer deletes a load balancer and its interfaces.
func (s *Server) DeleteLoadBalancer(regionName, arn string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, lb, err := s.loadBalancer(regionName, arn)
	if err != nil {
		return err
	}
	for _, id := range lb.enis {
		delete(reg.enis, id)
	}
	delete(reg.lbs, arn)
	return nil
}

func (s *Server) loadBalancer(regionName, arn string) (*region, *loadBalancer, error) {
	reg, err := s.region(regionName)
	if err != nil {
		return nil, nil, err
	}
	lb := reg.lbs[arn]
	if lb == nil {
		return nil, nil, fmt.Errorf("load balancer %s not found in %s", arn, regionName)
	}
	return reg, lb, nil
}

// serviceTags returns the tags of a load balancer or DB instance by ARN.
func (r *region) serviceTags(arn string) (map[string]string, *apiError) {
	if lb := r.lbs[arn]; lb != nil {
		return lb.tags, nil
	}
	for _, db := range r.dbs {
		if db.arn == arn {
			return db.tags, nil
		}
	}
	return nil, errLBNotFound(arn)
}
