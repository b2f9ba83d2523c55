package awsemu

import (
	"encoding/binary"
	"fmt"
	"maps"
	"net/netip"
)

// region is the state of one emulated region.
type region struct {
	name      string
	vpcs      map[string]*vpc
	instances map[string]*instance
	enis      map[string]*eni
	groups    map[string]*securityGroup
	// lbs are the ELBv2 load balancers by ARN, dbs the RDS DB instances
	// by identifier.
	lbs map[string]*loadBalancer
	dbs map[string]*dbInstance
	// clusters are the Aurora DB clusters by identifier.
	clusters map[string]*dbCluster
	// natGateways and peerings shape routing (routing.go).
	natGateways    map[string]*natGateway
	peerings       map[string]*peering
	tgwAttachments map[string]*tgwAttachment
}

func newRegion(name string) *region {
	return &region{
		name:      name,
		vpcs:      map[string]*vpc{},
		instances: map[string]*instance{},
		enis:      map[string]*eni{},
		groups:    map[string]*securityGroup{},
		lbs:       map[string]*loadBalancer{},
		dbs:       map[string]*dbInstance{},
		clusters:  map[string]*dbCluster{},

		natGateways:    map[string]*natGateway{},
		peerings:       map[string]*peering{},
		tgwAttachments: map[string]*tgwAttachment{},
	}
}

type vpc struct {
	id       string
	cidr     netip.Prefix
	subnetID string
	tags     map[string]string
	// nextHost is the offset in cidr of the next address to hand out.
	nextHost uint32
	// defaultGroup is the id of the VPC's "default" security group.
	defaultGroup string
	// natGatewayID is the NAT gateway the subnet routes the internet
	// through ("": the internet gateway).
	natGatewayID string
}

type instance struct {
	id           string
	vpcID        string
	subnetID     string
	zone         string
	instanceType string
	state        string
	tags         map[string]string
	// enis are the ids of the attached interfaces, by device index.
	enis []string
	// hiddenFor is how many more DescribeInstances calls in the region do
	// not see the instance yet (eventual consistency).
	hiddenFor int
}

type eni struct {
	id         string
	vpcID      string
	subnetID   string
	mac        string
	privateIPs []string
	publicIP   string
	groups     []string
	tags       map[string]string
	instanceID string
	device     int
	// description, interfaceType and requesterID are set on the
	// interfaces AWS services create for themselves (requester-managed),
	// e.g. "ELB app/<name>/<id>" for a load balancer's.
	description   string
	interfaceType string
	requesterID   string
}

type securityGroup struct {
	id          string
	name        string
	description string
	vpcID       string
	tags        map[string]string
	ingress     []rule
	egress      []rule
}

// rule is one security group rule: one protocol and port range, and one
// peer (a CIDR, an IPv6 CIDR or a group).
type rule struct {
	protocol    string
	fromPort    int32
	toPort      int32
	cidr        string
	cidrV6      string
	groupID     string
	description string
}

// key identifies a rule regardless of its description, as AWS does when it
// finds duplicates and rules to revoke.
func (r rule) key() rule {
	r.description = ""
	return r
}

// Instance states and their EC2 codes.
var stateCodes = map[string]int{
	"pending":       0,
	"running":       16,
	"shutting-down": 32,
	"terminated":    48,
	"stopping":      64,
	"stopped":       80,
}

// newID returns a fresh id with prefix; ids of one prefix sort in creation
// order, which keeps paging cursors stable.
func (s *Server) newID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s-%017x", prefix, s.seq)
}

// allocIP hands out the next free host address of the VPC.
func (v *vpc) allocIP() (string, error) {
	v.nextHost++
	base := v.cidr.Masked().Addr().As4()
	n := binary.BigEndian.Uint32(base[:]) + v.nextHost
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	addr := netip.AddrFrom4(b)
	if !v.cidr.Contains(addr) || v.nextHost >= 1<<(32-v.cidr.Bits())-1 {
		return "", fmt.Errorf("VPC %s has no free address left in %s", v.id, v.cidr)
	}
	return addr.String(), nil
}

func (s *Server) newMAC() string {
	s.seq++
	n := s.seq
	return fmt.Sprintf("02:%02x:%02x:%02x:%02x:%02x", byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// copyTags returns a copy of tags that is never nil.
func copyTags(tags map[string]string) map[string]string {
	out := make(map[string]string, len(tags))
	maps.Copy(out, tags)
	return out
}

// visible reports whether an instance is seen by describes.
func (i *instance) visible() bool { return i.hiddenFor <= 0 }

// primaryIP is the first private address of the primary interface.
func (r *region) primaryIP(i *instance) (private, public string) {
	if len(i.enis) == 0 {
		return "", ""
	}
	e := r.enis[i.enis[0]]
	if e == nil || len(e.privateIPs) == 0 {
		return "", ""
	}
	return e.privateIPs[0], e.publicIP
}
