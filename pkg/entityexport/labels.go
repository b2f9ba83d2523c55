package entityexport

import (
	"maps"
	"sort"
	"strings"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// federationLabelPrefix prefixes the labels the leader sets on a RemoteEntity.
const federationLabelPrefix = "federation.antreaplus.io/"

// Spoofable tells whether a label of an exported entity would pass it off
// as another member's, or as another member's labels: such labels (under
// federation.antreaplus.io/ and member.federation.antreaplus.io/) are
// only ever set by the leader.
func Spoofable(key string) bool {
	return strings.HasPrefix(key, federationLabelPrefix) || strings.HasPrefix(key, federationv1alpha1.MemberLabelPrefix)
}

// ImportedLabels select every RemoteEntity a leader imported from
// sourceCluster: they are the record of what was imported from it.
func ImportedLabels(sourceCluster string) map[string]string {
	return map[string]string{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation, federationv1alpha1.LabelSourceCluster: sourceCluster}
}

// MemberLabels turns the labels of a member's registry entry (its
// MemberCluster) into the labels its remote entities carry:
// member.federation.antreaplus.io/<name>=<value>, where <name> is the key
// without its prefix (topology.kubernetes.io/region becomes region). The
// managed-by label of the entry is left out. When several keys give one
// name, an unprefixed key wins over prefixed ones, and among prefixed keys
// the first in lexical order wins: region=eu beats
// topology.kubernetes.io/region=us, and a.example/zone beats b.example/zone.
func MemberLabels(registry map[string]string) map[string]string {
	keys := make([]string, 0, len(registry))
	for k := range registry {
		if k != federationv1alpha1.LabelManagedBy {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		pi, pj := strings.Contains(keys[i], "/"), strings.Contains(keys[j], "/")
		if pi != pj {
			return !pi
		}
		return keys[i] < keys[j]
	})
	out := map[string]string{}
	for _, k := range keys {
		name := federationv1alpha1.MemberLabelPrefix + k[strings.LastIndex(k, "/")+1:]
		if _, taken := out[name]; !taken {
			out[name] = registry[k]
		}
	}
	return out
}

// SourceLabels are the labels that say which member an entity comes from:
// federation.antreaplus.io/source-cluster=<src.ClusterID> and src's member
// labels (MemberLabels). A member controller evaluates the requirements of
// a ClusterSet peer on these two label families against its own entities
// with its own Source (its ClusterMembership's clusterID and labels).
func SourceLabels(src Source) map[string]string {
	out := MemberLabels(src.Labels)
	out[federationv1alpha1.LabelSourceCluster] = src.ClusterID
	return out
}

// RemoteLabels are the labels of the RemoteEntity of an entity labelled
// entity, exported by src: the entity's labels but the spoofable ones,
// src's member labels, the source cluster and the managed-by label (which
// replaces an entity's own managed-by label).
func RemoteLabels(src Source, entity map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range entity {
		if !Spoofable(k) {
			out[k] = v
		}
	}
	maps.Copy(out, SourceLabels(src))
	out[federationv1alpha1.LabelManagedBy] = federationv1alpha1.ManagedByFederation
	return out
}
