package serviceexport

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	discoveryv1 "k8s.io/api/discovery/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

const (
	// maxEndpointsPerSlice is the kube-controller-manager's default.
	maxEndpointsPerSlice = 100
)

// ImportLabels are the labels of every object a leader writes for the
// federated Service name: the managed-by label and the MCS service name.
func ImportLabels(name string) map[string]string {
	return map[string]string{
		federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation,
		mcsv1beta1.LabelServiceName:       name,
	}
}

// SliceLabels are the labels of an imported EndpointSlice of name from
// cluster. When derived is set, the slice also backs the derived Service
// of that name, so kube-proxy or Antrea route the cluster-set IP to it.
func SliceLabels(name, cluster, derived string) map[string]string {
	l := ImportLabels(name)
	l[mcsv1beta1.LabelSourceCluster] = cluster
	l[discoveryv1.LabelManagedBy] = federationv1alpha1.EndpointSliceManagedBy
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
