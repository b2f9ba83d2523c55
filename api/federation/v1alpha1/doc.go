// Package v1alpha1 holds the federation API of AntreaPlus: a member cluster's
// own identity and membership (ClusterMembership), and the registry of member
// clusters kept in every supervisor (MemberCluster), and the cloud entities a
// member shares with the federation (EntityExport) and imports from the
// others (RemoteEntity).
//
// Identity follows KEP-2149: a ClusterMembership's clusterID is the value of
// the well-known property cluster.clusterset.k8s.io and its federationID that
// of clusterset.k8s.io.
//
// +kubebuilder:object:generate=true
// +groupName=federation.antreaplus.io
package v1alpha1
