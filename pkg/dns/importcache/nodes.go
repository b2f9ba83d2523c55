package importcache

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"sync"

	"github.com/coredns/coredns/plugin/kubernetes/object"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Node is the slim copy of one of the member's Nodes: where it is and
// which client addresses are on it.
type Node struct {
	Name string
	// PodCIDRs are spec.podCIDRs (spec.podCIDR when only it is set).
	PodCIDRs []netip.Prefix
	// Addrs are the addresses of status.addresses that are IPs.
	Addrs []netip.Addr
	// Zone and Region are the topology.kubernetes.io/zone and /region labels.
	Zone, Region string

	*object.Empty
}

// Node converts a *corev1.Node to its slim *Node.
func (c *Converter) Node(obj metav1.Object) (metav1.Object, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return nil, fmt.Errorf("unexpected object %T, want a Node", obj)
	}
	s := &Node{Name: n.Name, Zone: c.intern(n.Labels[corev1.LabelTopologyZone]), Region: c.intern(n.Labels[corev1.LabelTopologyRegion])}
	cidrs := n.Spec.PodCIDRs
	if len(cidrs) == 0 && n.Spec.PodCIDR != "" {
		cidrs = []string{n.Spec.PodCIDR}
	}
	for _, p := range cidrs {
		if pfx, err := netip.ParsePrefix(p); err == nil {
			s.PodCIDRs = append(s.PodCIDRs, pfx.Masked())
		}
	}
	for _, a := range n.Status.Addresses {
		if ip, err := netip.ParseAddr(a.Address); err == nil {
			s.Addrs = append(s.Addrs, ip.Unmap())
		}
	}
	return s, nil
}

// Nodes knows where the member's Nodes are, so that the DNS server can
// tell a client's zone and region from its address. It is pure.
type Nodes struct {
	mu      sync.RWMutex
	byName  map[string]*Node
	byAddr  map[netip.Addr]*Node
	byCIDR  map[netip.Prefix]*Node
	lengths map[int]int    // pod CIDRs per prefix length
	order   []int          // the prefix lengths, longest first
	regions map[string]int // Nodes per region
	region  string         // the most common region
}

// NewNodes returns an empty Nodes.
func NewNodes() *Nodes {
	return &Nodes{byName: map[string]*Node{}, byAddr: map[netip.Addr]*Node{}, byCIDR: map[netip.Prefix]*Node{},
		lengths: map[int]int{}, regions: map[string]int{}}
}

// Set adds or replaces a Node.
func (n *Nodes) Set(node *Node) {
	n.mu.Lock()
	defer n.mu.Unlock()
	old := n.byName[node.Name]
	if old != nil && sameNode(old, node) {
		return // a status heartbeat: nothing DNS uses changed
	}
	n.unfile(old)
	n.byName[node.Name] = node
	n.file(node)
	n.summarize()
}

// Delete removes the Node of that name.
func (n *Nodes) Delete(name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.unfile(n.byName[name])
	delete(n.byName, name)
	n.summarize()
}

// Retain keeps only the Nodes named in names: informers that listed again
// after an outage never report what was deleted meanwhile.
func (n *Nodes) Retain(names map[string]bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for name, node := range n.byName {
		if !names[name] {
			n.unfile(node)
			delete(n.byName, name)
		}
	}
	n.summarize()
}

// Locate returns the zone and region of the Node whose address is ip or
// whose pod CIDR holds it. When no Node does, found is false and region is
// the member's most common region.
func (n *Nodes) Locate(ip netip.Addr) (zone, region string, found bool) {
	ip = ip.Unmap()
	n.mu.RLock()
	defer n.mu.RUnlock()
	if node := n.byAddr[ip]; node != nil {
		return node.Zone, node.Region, true
	}
	for _, bits := range n.order {
		if p, err := ip.Prefix(bits); err == nil {
			if node := n.byCIDR[p]; node != nil {
				return node.Zone, node.Region, true
			}
		}
	}
	return "", n.region, false
}

func (n *Nodes) file(node *Node) {
	for _, a := range node.Addrs {
		n.byAddr[a] = node
	}
	for _, p := range node.PodCIDRs {
		if n.byCIDR[p] == nil {
			n.lengths[p.Bits()]++
		}
		n.byCIDR[p] = node
	}
	if node.Region != "" {
		n.regions[node.Region]++
	}
}

// unfile removes what node filed, unless another Node filed it since.
func (n *Nodes) unfile(node *Node) {
	if node == nil {
		return
	}
	for _, a := range node.Addrs {
		if n.byAddr[a] == node {
			delete(n.byAddr, a)
		}
	}
	for _, p := range node.PodCIDRs {
		if n.byCIDR[p] == node {
			delete(n.byCIDR, p)
			if n.lengths[p.Bits()]--; n.lengths[p.Bits()] <= 0 {
				delete(n.lengths, p.Bits())
			}
		}
	}
	if node.Region != "" {
		if n.regions[node.Region]--; n.regions[node.Region] <= 0 {
			delete(n.regions, node.Region)
		}
	}
}

// summarize recomputes the prefix lengths to try and the most common
// region (ties go to the first name in order).
func (n *Nodes) summarize() {
	n.order = n.order[:0]
	for bits := range n.lengths {
		n.order = append(n.order, bits)
	}
	slices.SortFunc(n.order, func(a, b int) int { return cmp.Compare(b, a) })
	n.region = ""
	for r, count := range n.regions {
		if best := n.regions[n.region]; count > best || (count == best && r < n.region) {
			n.region = r
		}
	}
}

func sameNode(a, b *Node) bool {
	return a.Zone == b.Zone && a.Region == b.Region && slices.Equal(a.PodCIDRs, b.PodCIDRs) && slices.Equal(a.Addrs, b.Addrs)
}

// GetNamespace implements metav1.Object; Nodes have none.
func (n *Node) GetNamespace() string { return "" }

// GetName implements metav1.Object.
func (n *Node) GetName() string { return n.Name }

// GetResourceVersion implements metav1.Object; the version is not kept.
func (n *Node) GetResourceVersion() string { return "" }

// SetNamespace implements metav1.Object as a no-op.
func (n *Node) SetNamespace(string) {}

// SetName implements metav1.Object as a no-op.
func (n *Node) SetName(string) {}

// SetResourceVersion implements metav1.Object as a no-op.
func (n *Node) SetResourceVersion(string) {}

// DeepCopyObject implements runtime.Object; a Node is never changed in place.
func (n *Node) DeepCopyObject() runtime.Object { c := *n; return &c }
