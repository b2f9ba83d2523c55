package sources

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// The leader controllers read the supervisor's registry (the federation
// manager's rights: chart files/rbac/federation-manager.yaml).
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=memberclusters,verbs=get,namespace=antreaplus-system

// registryTTL is how long an answer of the registry is reused.
const registryTTL = 5 * time.Second

// registration is what the registry last said of a cluster.
type registration struct {
	present bool
	err     error
	at      time.Time
}

// lookup reads a cluster's MemberCluster, or reuses an answer younger than registryTTL.
func (t *Tracker) lookup(ctx context.Context, clusterID string) registration {
	t.mu.Lock()
	reg, ok := t.registered[clusterID]
	t.mu.Unlock()
	if ok && t.now().Sub(reg.at) < registryTTL {
		return reg
	}
	reg = registration{present: true, at: t.now()}
	if t.opts.Registry != nil {
		mc := &federationv1alpha1.MemberCluster{}
		err := t.opts.Registry.Get(ctx, client.ObjectKey{Namespace: t.opts.RegistryNamespace, Name: clusterID}, mc)
		switch {
		case apierrors.IsNotFound(err):
			reg.present = false
		case err != nil:
			reg.err = fmt.Errorf("reading the registry entry of %s: %w", clusterID, err)
		}
	}
	t.mu.Lock()
	t.registered[clusterID] = reg
	t.mu.Unlock()
	return reg
}

// StillRegistered tells whether a cluster this manager has no session for
// is still in its registry (its session is starting): then its imports are
// kept. A failed read counts as yes.
func (t *Tracker) StillRegistered(ctx context.Context, clusterID string) bool {
	return t.lookup(ctx, clusterID).present
}
