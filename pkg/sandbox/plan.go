package sandbox

import (
	"fmt"
	"net/netip"
)

// MaxClusters is the most clusters one sandbox runs; it bounds the CIDR plan.
const MaxClusters = 50

// ClusterPlan is the fixed layout of one sandbox cluster.
type ClusterPlan struct {
	// Name is the cluster's kwokctl name and its kubeconfig context.
	Name string `json:"name"`
	// Index counts from 1.
	Index int `json:"index"`
	// PodCIDR is the range the cluster's nodes take their Pod CIDRs from.
	PodCIDR netip.Prefix `json:"podCIDR"`
	// ServiceCIDR is the cluster's Service ClusterIP range.
	ServiceCIDR netip.Prefix `json:"serviceCIDR"`
	// ServiceCIDR6 is the cluster's IPv6 Service range, which makes it a
	// dual-stack cluster for Services; unset (Options.SingleStack) for an
	// IPv4-only one.
	ServiceCIDR6 netip.Prefix `json:"serviceCIDR6,omitempty"`
	// APIServerPort is the port the cluster's API server listens on.
	APIServerPort int `json:"apiServerPort"`
	// ComponentPorts are the ports of the cluster's other components. They
	// are fixed by the plan because kwokctl's own choice races when several
	// clusters start at once.
	ComponentPorts ComponentPorts `json:"componentPorts"`
	// DNS is where the member's DNS server of a federated sandbox listens.
	DNS DNSPlan `json:"dns"`
}

// DNSPlan is the address of a member's DNS server: a loopback address of
// its own (127.0.53.i) and the same ports for every member.
type DNSPlan struct {
	Addr netip.Addr `json:"addr"`
	// Port serves DNS (UDP and TCP).
	Port int `json:"port"`
	// ReadyPort serves /ready, MetricsPort /metrics.
	ReadyPort   int `json:"readyPort"`
	MetricsPort int `json:"metricsPort"`
}

// Endpoint is host:port of the DNS service.
func (d DNSPlan) Endpoint() string {
	return netip.AddrPortFrom(d.Addr, uint16(d.Port)).String()
}

// ComponentPorts are the loopback ports of a cluster's components other than the API server.
type ComponentPorts struct {
	Etcd              int `json:"etcd"`
	EtcdPeer          int `json:"etcdPeer"`
	ControllerManager int `json:"controllerManager"`
	Scheduler         int `json:"scheduler"`
	Kwok              int `json:"kwok"`
}

// componentPortCount is how many ports ComponentPorts holds.
const componentPortCount = 5

// All returns every port of the cluster, the API server's first.
func (p ClusterPlan) All() []int {
	c := p.ComponentPorts
	return []int{p.APIServerPort, c.Etcd, c.EtcdPeer, c.ControllerManager, c.Scheduler, c.Kwok}
}

// ClusterName is the name of the i-th cluster (from 1).
func ClusterName(i int) string { return fmt.Sprintf("member-%d", i) }

// dnsPortOffset puts the DNS ports above every API server and component
// port of the largest sandbox.
const dnsPortOffset = MaxClusters * (1 + componentPortCount)

// Plan lays out n clusters: member-i gets Pod CIDR 10.(100+i).0.0/16,
// Service CIDR 10.(200+i).0.0/16, API server port apiPortBase+i-1, five
// component ports above the API server ports of the largest sandbox, and a
// DNS server on 127.0.53.i, ports apiPortBase+300..302, so no two clusters
// overlap and the layout is the same on every run.
func Plan(n, apiPortBase int) ([]ClusterPlan, error) {
	if n < 1 || n > MaxClusters {
		return nil, fmt.Errorf("a sandbox runs 1 to %d clusters, not %d", MaxClusters, n)
	}
	last := apiPortBase + PortSpan - 1
	if apiPortBase < 1 || last > 65535 {
		return nil, fmt.Errorf("ports %d..%d are not valid TCP ports: choose a lower base port", apiPortBase, last)
	}
	plans := make([]ClusterPlan, n)
	for i := 1; i <= n; i++ {
		plans[i-1] = ClusterPlan{
			Name:          ClusterName(i),
			Index:         i,
			PodCIDR:       netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(100 + i), 0, 0}), 16),
			ServiceCIDR:   netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(200 + i), 0, 0}), 16),
			ServiceCIDR6:  netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0, 0x10, 0, byte(200 + i)}), 112),
			APIServerPort: apiPortBase + i - 1,
		}
		c := apiPortBase + MaxClusters + (i-1)*componentPortCount
		plans[i-1].ComponentPorts = ComponentPorts{Etcd: c, EtcdPeer: c + 1, ControllerManager: c + 2, Scheduler: c + 3, Kwok: c + 4}
		d := apiPortBase + dnsPortOffset
		plans[i-1].DNS = DNSPlan{Addr: netip.AddrFrom4([4]byte{127, 0, 53, byte(i)}), Port: d, ReadyPort: d + 1, MetricsPort: d + 2}
	}
	return plans, nil
}

// PortSpan is how many ports from its base one sandbox may use: API
// servers, components, DNS, the local cloud and the external DNS stack.
// Sandboxes whose bases are PortSpan or more apart never share a port.
const PortSpan = externalDNSPortOffset + externalDNSPorts

// Ports are every TCP port of a sandbox of these plans: each cluster's, and
// the DNS, cloud and external DNS ports that follow them.
func Ports(plans []ClusterPlan) []int {
	var out []int
	for _, p := range plans {
		out = append(out, p.All()...)
	}
	if len(plans) > 0 {
		d := plans[0].DNS
		c := PlanCloud(plans[0].APIServerPort)
		out = append(out, d.Port, d.ReadyPort, d.MetricsPort, c.AWS, c.Azure)
		for slot := range maxCloudMembers {
			m := PlanCloudControllers(plans[0].APIServerPort, slot)
			out = append(out, m.Metrics, m.Health, m.Policy)
		}
		t := PlanTenancy(plans[0].APIServerPort, CloudMember{Ports: PlanCloudControllers(plans[0].APIServerPort, 0)})
		for _, c := range t.Controllers[1:] { // the first is the member's cloud controller
			out = append(out, c.Ports.Metrics, c.Ports.Health)
		}
		out = append(out, PlanExternalDNS(plans[0].APIServerPort, plans[0].Name).Ports()...)
	}
	return out
}
