package membership

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// ErrNoDNSEndpointAPI says that a cluster serves no DNSEndpoint API: its
// leader writes nothing until ExternalDNS's CRD is installed.
var ErrNoDNSEndpointAPI = errors.New("the cluster serves no DNSEndpoint API (externaldns.k8s.io/v1alpha1): nothing is published until ExternalDNS's CRD dnsendpoints.externaldns.k8s.io, which comes with ExternalDNS, is installed")

// SetExternalDNS makes a member publish the federation's names under spec
// (its ClusterMembership's spec.externalDNS; nil stops publishing and its
// leader deletes what it wrote). The API server validates spec: a bad
// domain or TTL is refused with the CRD's message and nothing changes. It
// returns ErrNoDNSEndpointAPI (after the change) when the cluster serves no
// DNSEndpoint API yet.
func SetExternalDNS(ctx context.Context, c Cluster, spec *federationv1alpha1.ExternalDNSSpec) error {
	cl, err := c.Client()
	if err != nil {
		return err
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m, err := readMembership(ctx, c, cl)
		if err != nil {
			return err
		}
		if m == nil {
			return fmt.Errorf("%s belongs to no federation: join it first ('antreaplus federation join --context %s')", c.Name, c.Name)
		}
		m.Spec.ExternalDNS = spec
		return cl.Update(ctx, m)
	})
	if apierrors.IsInvalid(err) {
		return fmt.Errorf("%s refused spec.externalDNS: %w", c.Name, err)
	}
	if err != nil || spec == nil {
		return err
	}
	list := &externaldnsv1alpha1.DNSEndpointList{}
	err = cl.List(ctx, list, client.InNamespace(federationv1alpha1.SystemNamespace), client.Limit(1))
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return ErrNoDNSEndpointAPI
	}
	return nil
}
