package importcache

import (
	"net/netip"
	"strings"

	"github.com/coredns/coredns/plugin/kubernetes/object"
	"k8s.io/apimachinery/pkg/runtime"
)

// Port is a port of an import or of an imported EndpointSlice.
type Port struct {
	Name     string
	Protocol string // TCP, UDP or SCTP
	Port     int32
}

// Endpoint is one ready endpoint of an imported EndpointSlice.
type Endpoint struct {
	// Hostname is the endpoint's hostname field, "" when unset.
	Hostname string
	Addrs    []netip.Addr
	// Zone is the endpoint's zone field, "" when unknown.
	Zone string
}

// Import is the slim copy of a ServiceImport.
type Import struct {
	Namespace string
	Name      string
	Headless  bool
	IPs       []netip.Addr
	Ports     []Port
	// PreferClose is spec.trafficDistribution PreferClose: answers made of
	// endpoints hold the client's closest ones only.
	PreferClose bool

	*object.Empty
}

// Slice is the slim copy of an imported EndpointSlice: only its ready
// endpoints are kept.
type Slice struct {
	Namespace string
	Name      string
	// Service is the multicluster.kubernetes.io/service-name label.
	Service string
	// Cluster is the multicluster.kubernetes.io/source-cluster label.
	Cluster string
	// Region is the source cluster's region (the slice's
	// federation.antreaplus.io/source-region annotation), "" when unknown.
	Region string
	// Zones are the zones of the source cluster's nodes (the slice's
	// federation.antreaplus.io/source-zones annotation): an endpoint
	// without a zone of its own, a load balancer address, is in each.
	Zones     []string
	Ports     []Port
	Endpoints []Endpoint

	*object.Empty
}

// InZone tells whether an endpoint of the slice is in zone (compared
// case-insensitively, as DNS names are): its own zone, or, when it has
// none, one of the source cluster's zones.
func (s *Slice) InZone(e Endpoint, zone string) bool {
	if e.Zone != "" {
		return strings.EqualFold(e.Zone, zone)
	}
	for _, z := range s.Zones {
		if strings.EqualFold(z, zone) {
			return true
		}
	}
	return false
}

// Key names an imported Service.
type Key struct{ Namespace, Name string }

// Service is what DNS answers for one imported name: the import and the
// ready endpoints of every source cluster. A Service is never changed once
// built, so readers may keep it without a lock.
type Service struct {
	Key
	Headless bool
	IPs      []netip.Addr
	Ports    []Port
	// PreferClose tells that answers made of endpoints hold only the ones
	// closest to the client (package serviceexport/locality).
	PreferClose bool
	// Clusters are the source clusters with imported slices, by ID.
	Clusters []Cluster
}

// Cluster is one source cluster's part of a Service.
type Cluster struct {
	ID     string
	Slices []*Slice
}

// Ready tells whether the Service has at least one ready endpoint.
func (s *Service) Ready() bool {
	for i := range s.Clusters {
		if s.Clusters[i].Ready() {
			return true
		}
	}
	return false
}

// Cluster returns the part of the Service from one source cluster (nil when none).
func (s *Service) Cluster(id string) *Cluster {
	for i := range s.Clusters {
		if strings.EqualFold(s.Clusters[i].ID, id) {
			return &s.Clusters[i]
		}
	}
	return nil
}

// Ready tells whether the cluster has at least one ready endpoint.
func (c *Cluster) Ready() bool {
	for _, sl := range c.Slices {
		if len(sl.Endpoints) > 0 {
			return true
		}
	}
	return false
}

// The informers store these slim objects; they implement metav1.Object
// through object.Empty, as the kubernetes plugin's objects do.

// GetNamespace implements metav1.Object.
func (i *Import) GetNamespace() string { return i.Namespace }

// GetName implements metav1.Object.
func (i *Import) GetName() string { return i.Name }

// GetResourceVersion implements metav1.Object; the version is not kept.
func (i *Import) GetResourceVersion() string { return "" }

// SetNamespace implements metav1.Object as a no-op.
func (i *Import) SetNamespace(string) {}

// SetName implements metav1.Object as a no-op.
func (i *Import) SetName(string) {}

// SetResourceVersion implements metav1.Object as a no-op.
func (i *Import) SetResourceVersion(string) {}

// DeepCopyObject implements runtime.Object; an Import is never changed in place.
func (i *Import) DeepCopyObject() runtime.Object { c := *i; return &c }

// GetNamespace implements metav1.Object.
func (s *Slice) GetNamespace() string { return s.Namespace }

// GetName implements metav1.Object.
func (s *Slice) GetName() string { return s.Name }

// GetResourceVersion implements metav1.Object; the version is not kept.
func (s *Slice) GetResourceVersion() string { return "" }

// SetNamespace implements metav1.Object as a no-op.
func (s *Slice) SetNamespace(string) {}

// SetName implements metav1.Object as a no-op.
func (s *Slice) SetName(string) {}

// SetResourceVersion implements metav1.Object as a no-op.
func (s *Slice) SetResourceVersion(string) {}

// DeepCopyObject implements runtime.Object; a Slice is never changed in place.
func (s *Slice) DeepCopyObject() runtime.Object { c := *s; return &c }
