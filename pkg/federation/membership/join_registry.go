package membership

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// register writes the member's entry and credential Secret into every
// supervisor's registry.
func (p *joinPlan) register(ctx context.Context, r reporter) error {
	for i := range p.supervisors {
		s := &p.supervisors[i]
		if s.installCRDs {
			if err := installFederationCRDs(ctx, r, s.Cluster); err != nil {
				return err
			}
			cl, err := s.Client()
			if err != nil {
				return err
			}
			s.client, s.installCRDs = cl, false
		}
		r.step(s.Name, "registering member %s (%s) ...", p.reg.ClusterID, p.reg.Server)
		if err := writeRegistration(ctx, r, s.Cluster, s.client, p.reg); err != nil {
			return fmt.Errorf("%w: join again once %s answers; the join is idempotent", err, s.Name)
		}
	}
	return nil
}

// writeRegistration writes one member's credential Secret and registry entry.
func writeRegistration(ctx context.Context, r reporter, s Cluster, cl client.Client, reg registration) error {
	if err := ensureNamespace(ctx, cl, r, s.Name); err != nil {
		return err
	}
	err := ensure(ctx, cl, credentialSecret(reg), func(have, want *corev1.Secret) {
		have.Type, have.Data = want.Type, want.Data
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	err = ensure(ctx, cl, memberClusterObject(reg), func(have, want *federationv1alpha1.MemberCluster) {
		have.Spec = want.Spec
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	return nil
}
