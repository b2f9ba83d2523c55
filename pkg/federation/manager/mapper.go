package manager

import (
	"net/http"
	"slices"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// leaseMapping is the REST mapping of coordination.k8s.io/v1 Leases, the
// same in every Kubernetes release the federation supports.
var leaseMapping = &meta.RESTMapping{
	Resource:         coordinationv1.SchemeGroupVersion.WithResource("leases"),
	GroupVersionKind: coordinationv1.SchemeGroupVersion.WithKind("Lease"),
	Scope:            meta.RESTScopeNamespace,
}

// memberMapper is the REST mapper of a member's client and cache: Leases
// from leaseMapping, everything else asked of the member lazily, when first
// used. The cache's per-kind options (memberCacheByObject) need the mapping
// of every kind they name when the cache is built; asked of the member, a
// session could not even be built while the member does not answer (the
// connection is then never retried: an outage during a reconnect left a
// member without a session).
func memberMapper(c *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
	lazy, err := apiutil.NewDynamicRESTMapper(c, httpClient)
	if err != nil {
		return nil, err
	}
	return knownLeases{lazy}, nil
}

// knownLeases answers the mapping of Leases itself.
type knownLeases struct{ meta.RESTMapper }

// RESTMapping implements meta.RESTMapper.
func (k knownLeases) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if gk == leaseMapping.GroupVersionKind.GroupKind() &&
		(len(versions) == 0 || slices.Contains(versions, leaseMapping.GroupVersionKind.Version)) {
		m := *leaseMapping
		return &m, nil
	}
	return k.RESTMapper.RESTMapping(gk, versions...)
}
