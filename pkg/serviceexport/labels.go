package serviceexport

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	discoveryv1 "k8s.io/api/discovery/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	"antreaplus.io/antreaplus/internal/names"
)

const (
	// ManagedBy is the endpointslice.kubernetes.io/managed-by value of the
	// EndpointSlices the federation writes (a label value: no "/").
	ManagedBy = "federation.antreaplus.io"

	// FlatNetworkAnnotation on a ServiceExport, set to "true", declares that
	// the Pods behind the exported Service are reachable from every member:
	// the export then contributes Pod IPs.
	FlatNetworkAnnotation = "federation.antreaplus.io/flat-network"
	// NetworkAnnotation on a ServiceExport names the network its private
	// addresses belong to (a Network's name, such as aws.vpc-0a1b); it is
	// copied to the EndpointSlices imported from it. Without it they are
	// in the exporting cluster's network, cluster.<clusterID>.
	NetworkAnnotation = "network.antreaplus.io/name"
	// AddressTypeAnnotation on an imported EndpointSlice names the kind of
	// addresses it holds (LoadBalancer, NodePort, PodIP, None).
	AddressTypeAnnotation = "federation.antreaplus.io/address-type"
	// SourceExportAnnotation on an imported EndpointSlice records the source
	// export's properties, so that a leader can merge that export again while
	// its cluster cannot be read.
	SourceExportAnnotation = "federation.antreaplus.io/source-export"
	// SourceRegionAnnotation on an imported EndpointSlice is the source
	// cluster's region (see Region); absent when unknown.
	SourceRegionAnnotation = "federation.antreaplus.io/source-region"
	// SourceZonesAnnotation on an imported EndpointSlice lists the zones of
	// the source cluster's nodes (see Zones), comma-separated: an endpoint
	// without a zone of its own, a load balancer address, serves each of
	// them. Absent when unknown.
	SourceZonesAnnotation = "federation.antreaplus.io/source-zones"
	// AddressTypesAnnotation on a ServiceImport lists each exporting
	// cluster's address type: "member-1=LoadBalancer,member-2=NodePort".
	AddressTypesAnnotation = "federation.antreaplus.io/address-types"
	// DerivedServiceAnnotation on a ServiceImport names the derived Service
	// whose ClusterIP is the ServiceImport's IP.
	DerivedServiceAnnotation = "federation.antreaplus.io/derived-service"

	// maxEndpointsPerSlice is the kube-controller-manager's default.
	maxEndpointsPerSlice = 100
)

// ImportLabels are the labels of every object a leader writes for the
// federated Service name: the managed-by label and the MCS service name.
func ImportLabels(name string) map[string]string {
	return map[string]string{
		names.ManagedByLabel:        names.ManagedBy,
		mcsv1beta1.LabelServiceName: name,
	}
}

// SliceLabels are the labels of an imported EndpointSlice of name from
// cluster. When derived is set, the slice also backs the derived Service
// of that name, so kube-proxy or Antrea route the cluster-set IP to it.
func SliceLabels(name, cluster, derived string) map[string]string {
	l := ImportLabels(name)
	l[mcsv1beta1.LabelSourceCluster] = cluster
	l[discoveryv1.LabelManagedBy] = ManagedBy
	if derived != "" {
		l[discoveryv1.LabelServiceName] = derived
	}
	return l
}

// DerivedServiceName is the name of the selector-less Service backing the
// ServiceImport name: "mcs-<name>", shortened with a hash to stay a valid
// Service name.
func DerivedServiceName(name string) string {
	n := "mcs-" + name
	if len(n) <= 63 {
		return n
	}
	return n[:50] + "-" + shortHash(name)
}

// SliceName is the name of the i-th imported IPv4 EndpointSlice of name from cluster.
func SliceName(name, cluster string, i int) string {
	return SliceNameFor(name, cluster, discoveryv1.AddressTypeIPv4, i)
}

// SliceNameFor is the name of the i-th imported EndpointSlice of name from
// cluster of an address type: IPv6 slices have a "-v6" suffix.
func SliceNameFor(name, cluster string, t discoveryv1.AddressType, i int) string {
	n := fmt.Sprintf("%s-%s-%s", name, cluster, shortHash(name+"/"+cluster))
	if t == discoveryv1.AddressTypeIPv6 {
		n += "-v6"
	}
	if i > 0 {
		n = fmt.Sprintf("%s-%d", n, i)
	}
	return n
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:8]
}
