package manager

import (
	"net/http"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// knownMappings are the REST mappings of every kind a supervisor reads or
// writes in a member, the same in every Kubernetes release the federation
// supports and in every member it joined: the kinds memberCacheByObject
// names (coordination.k8s.io/v1 Leases, v1 Nodes and Services,
// discovery.k8s.io/v1 EndpointSlices and multicluster.x-k8s.io/v1beta1
// ServiceImports, the own cache's kinds, owncache.go), the other core kinds
// the leader controllers read (Namespaces, ConfigMaps, Events), the
// ServiceExports of the MCS CRDs the federation installs, the federation's
// own kinds in a member, and the two kinds of others' CRDs it reads or
// writes at the one version it speaks (Antrea's crd.antrea.io/v1alpha2
// ExternalEntities, ExternalDNS's externaldns.k8s.io/v1alpha1 DNSEndpoints:
// a member without them answers a request for them with NotFound, which
// their readers take for "not installed", as they took the mapper's
// NoMatch). The first kind asked of the member instead made its mapper load
// the member's whole discovery (aggregated discovery: every group, every
// resource), 0.2-0.3 MB per member in every supervisor, and a member
// without the CRD had the group asked for again at every retry.
// TestKnownMappingsAsServed checks these against a real API server.
var knownMappings = []meta.RESTMapping{{
	Resource:         coordinationv1.SchemeGroupVersion.WithResource("leases"),
	GroupVersionKind: coordinationv1.SchemeGroupVersion.WithKind("Lease"),
	Scope:            meta.RESTScopeNamespace,
}, {
	Resource:         corev1.SchemeGroupVersion.WithResource("nodes"),
	GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Node"),
	Scope:            meta.RESTScopeRoot,
}, {
	Resource:         corev1.SchemeGroupVersion.WithResource("services"),
	GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Service"),
	Scope:            meta.RESTScopeNamespace,
}, {
	Resource:         discoveryv1.SchemeGroupVersion.WithResource("endpointslices"),
	GroupVersionKind: discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"),
	Scope:            meta.RESTScopeNamespace,
}, {
	// (The federation installs the MCS CRDs in every member, at this version.)
	Resource:         mcsv1beta1.SchemeGroupVersion.WithResource("serviceimports"),
	GroupVersionKind: mcsv1beta1.SchemeGroupVersion.WithKind("ServiceImport"),
	Scope:            meta.RESTScopeNamespace,
}, {
	Resource:         mcsv1beta1.SchemeGroupVersion.WithResource("serviceexports"),
	GroupVersionKind: mcsv1beta1.SchemeGroupVersion.WithKind("ServiceExport"),
	Scope:            meta.RESTScopeNamespace,
}, {
	Resource:         corev1.SchemeGroupVersion.WithResource("namespaces"),
	GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Namespace"),
	Scope:            meta.RESTScopeRoot,
}, {
	Resource:         corev1.SchemeGroupVersion.WithResource("configmaps"),
	GroupVersionKind: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
	Scope:            meta.RESTScopeNamespace,
}, {
	Resource:         corev1.SchemeGroupVersion.WithResource("events"),
	GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Event"),
	Scope:            meta.RESTScopeNamespace,
}, {
	Resource:         federationv1alpha1.GroupVersion.WithResource("clustermemberships"),
	GroupVersionKind: federationv1alpha1.GroupVersion.WithKind("ClusterMembership"),
	Scope:            meta.RESTScopeRoot,
}, {
	Resource:         federationv1alpha1.GroupVersion.WithResource("entityexports"),
	GroupVersionKind: federationv1alpha1.GroupVersion.WithKind("EntityExport"),
	Scope:            meta.RESTScopeNamespace,
}, {
	Resource:         federationv1alpha1.GroupVersion.WithResource("remoteentities"),
	GroupVersionKind: federationv1alpha1.GroupVersion.WithKind("RemoteEntity"),
	Scope:            meta.RESTScopeNamespace,
}, {
	// (Read of a supervisor member: its registry's reports, peer.go.)
	Resource:         federationv1alpha1.GroupVersion.WithResource("memberclusters"),
	GroupVersionKind: federationv1alpha1.GroupVersion.WithKind("MemberCluster"),
	Scope:            meta.RESTScopeNamespace,
}, {
	Resource:         antreav1alpha2.GroupVersion.WithResource("externalentities"),
	GroupVersionKind: antreav1alpha2.GroupVersion.WithKind("ExternalEntity"),
	Scope:            meta.RESTScopeNamespace,
}, {
	Resource:         externaldnsv1alpha1.GroupVersion.WithResource("dnsendpoints"),
	GroupVersionKind: externaldnsv1alpha1.GroupVersion.WithKind("DNSEndpoint"),
	Scope:            meta.RESTScopeNamespace,
}}

// memberMapper is the REST mapper of a member's client and cache: the
// kinds of knownMappings answered here, everything else asked of the member
// lazily, when first used. The cache's per-kind options
// (memberCacheByObject) need the mapping of every kind they name when the
// cache is built; asked of the member, a session could not even be built
// while the member does not answer (the connection is then never retried:
// an outage during a reconnect left a member without a session).
func memberMapper(c *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
	lazy, err := apiutil.NewDynamicRESTMapper(c, httpClient)
	if err != nil {
		return nil, err
	}
	return known{lazy}, nil
}

// known answers the mappings of knownMappings itself, and those of their
// lists (a cache asks for the scope of the list it is given: "LeaseList").
type known struct{ meta.RESTMapper }

// RESTMapping implements meta.RESTMapper.
func (k known) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if m := knownMapping(gk, versions); m != nil {
		return m, nil
	}
	if item, isList := strings.CutSuffix(gk.Kind, "List"); isList {
		if m := knownMapping(schema.GroupKind{Group: gk.Group, Kind: item}, versions); m != nil {
			m.GroupVersionKind.Kind = gk.Kind
			return m, nil
		}
	}
	return k.RESTMapper.RESTMapping(gk, versions...)
}

// knownMapping is a copy of the known mapping of gk at one of versions
// (any, when none is given), or nil.
func knownMapping(gk schema.GroupKind, versions []string) *meta.RESTMapping {
	for _, m := range knownMappings {
		if gk == m.GroupVersionKind.GroupKind() && (len(versions) == 0 || slices.Contains(versions, m.GroupVersionKind.Version)) {
			return &m
		}
	}
	return nil
}
