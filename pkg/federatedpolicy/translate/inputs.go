package translate

import (
	"net/netip"
	"sort"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/entityexport"
	"antreaplus.io/antreaplus/pkg/networks"
)

// Inputs is everything a translation reads besides the policy.
type Inputs struct {
	// Member is this member's identity.
	Member Member
	// Namespaces are the labels of the member's Namespaces, by name; only
	// peers with a namespaceSelector read them.
	Namespaces map[string]map[string]string
	// Entities are the member's RemoteEntities.
	Entities *Index
	// Services are the federated Services toServices entries name, by
	// namespace/name; a Service missing here is imported by nobody yet.
	Services map[types.NamespacedName]ServiceInput
	// Networks are the member's networks and their flat connections; nil
	// is a member that declares none (nothing is flat).
	Networks *networks.Topology
	// ClusterNetwork is the network of the member's Pods (its Network of
	// kind Cluster; "cluster.<clusterID>" when it declares none).
	ClusterNetwork string
	// EntityNetworks are, by Namespace, the networks of the member's own
	// ExternalEntities (their network.antreaplus.io/name label; "" for
	// entities without it), sorted: the enforcement points a policy
	// applied to ExternalEntities can be in.
	EntityNetworks map[string][]string
}

// clusterNetwork is the network of the member's Pods.
func (in *Inputs) clusterNetwork() string {
	if in.ClusterNetwork != "" {
		return in.ClusterNetwork
	}
	if in.Member.ClusterID != "" {
		return federationv1alpha1.ClusterNetworkPrefix + in.Member.ClusterID
	}
	return ""
}

// Member is this member's identity: its clusterID and labels, from its
// ClusterMembership. The zero Member is a cluster outside any federation.
type Member struct {
	ClusterID string
	// Labels are the ClusterMembership's labels (managed-by excepted).
	Labels map[string]string
	// Withheld are the other members' exports that do not reach this
	// member (the ClusterMembership's status, written by its leader).
	Withheld *federationv1alpha1.WithheldExports
}

// FederationLabels are the labels a RemoteEntity exported by this member
// would carry under the federation's two label families: the source
// cluster and the member labels, named as the leader names them
// (entityexport.MemberLabels: member.federation.antreaplus.io/<key>).
func (m Member) FederationLabels() labels.Set {
	set := labels.Set(entityexport.MemberLabels(m.Labels))
	if m.ClusterID != "" {
		set[federationv1alpha1.LabelSourceCluster] = m.ClusterID
	}
	return set
}

// ServiceInput is what this member imports of one federated Service: its
// ServiceImport (nil when it has none) and the imported EndpointSlices.
type ServiceInput struct {
	Import *mcsv1beta1.ServiceImport
	Slices []discoveryv1.EndpointSlice
}

// Index holds RemoteEntities by Namespace, with the labels selectors see
// and their parsed addresses, so that a peer looks only at the entities
// of the Namespaces it selects.
type Index struct {
	byNamespace map[string][]indexedEntity
	// byEgress are the entities ("namespace/name") that leave through
	// each egress address.
	byEgress map[netip.Addr][]string
}

type indexedEntity struct {
	name    string
	key     string // namespace/name
	cluster string
	labels  labels.Set
	entity  networks.Entity
}

// NewIndex indexes entities. A RemoteEntity's source-cluster label is
// taken from its spec.sourceCluster, whatever its labels say.
func NewIndex(entities []federationv1alpha1.RemoteEntity) *Index {
	x := &Index{byNamespace: map[string][]indexedEntity{}, byEgress: map[netip.Addr][]string{}}
	for i := range entities {
		e := &entities[i]
		lbls := make(labels.Set, len(e.Labels)+1)
		for k, v := range e.Labels {
			lbls[k] = v
		}
		lbls[federationv1alpha1.LabelSourceCluster] = e.Spec.SourceCluster
		ie := indexedEntity{name: e.Name, key: e.Namespace + "/" + e.Name, cluster: e.Spec.SourceCluster, labels: lbls, entity: networkEntity(e)}
		for _, a := range ie.entity.Addresses {
			if a.Kind == networks.Egress {
				x.byEgress[a.IP] = append(x.byEgress[a.IP], ie.key)
			}
		}
		x.byNamespace[e.Namespace] = append(x.byNamespace[e.Namespace], ie)
	}
	for _, list := range x.byNamespace {
		sort.Slice(list, func(a, b int) bool { return list[a].name < list[b].name })
	}
	for _, list := range x.byEgress {
		sort.Strings(list)
	}
	return x
}

// cloudNameTag is the label of a cloud resource's Name tag: the name an
// operator knows a VM by, in messages.
const cloudNameTag = "tag.cloud.antreaplus.io/Name"

// networkEntity is what the network decision knows of a RemoteEntity: its
// classified addresses, or, from a member that does not classify them,
// its endpoints (networks.Unclassified).
func networkEntity(e *federationv1alpha1.RemoteEntity) networks.Entity {
	name := e.Spec.SourceCluster + "/" + e.Namespace + "/" + e.Spec.SourceName
	if cloudName := e.Labels[cloudNameTag]; cloudName != "" {
		name += " (" + cloudName + ")"
	}
	ne := networks.Entity{Name: name, Network: e.Spec.Network}
	if len(e.Spec.Addresses) == 0 {
		var ips []netip.Addr
		for _, ep := range e.Spec.Endpoints {
			if a, err := netip.ParseAddr(ep.IP); err == nil {
				ips = append(ips, a.Unmap())
			}
		}
		ne.Addresses = networks.Unclassified(ips)
		return ne
	}
	for _, a := range e.Spec.Addresses {
		ip, err := netip.ParseAddr(a.IP)
		if err != nil {
			continue
		}
		na := networks.Address{IP: ip.Unmap(), Network: a.Network, Via: a.Via}
		switch a.Kind {
		case federationv1alpha1.AddressPublic:
			na.Kind = networks.Public
		case federationv1alpha1.AddressEgress:
			na.Kind = networks.Egress
		default:
			na.Kind = networks.Private
		}
		ne.Addresses = append(ne.Addresses, na)
	}
	return ne
}

// inNamespace returns the entities of a Namespace.
func (x *Index) inNamespace(ns string) []indexedEntity {
	if x == nil {
		return nil
	}
	return x.byNamespace[ns]
}
