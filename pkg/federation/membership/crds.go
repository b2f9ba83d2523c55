package membership

import (
	"context"
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/config/crd"
	"antreaplus.io/antreaplus/internal/crdinstall"
)

// errNoCRDs: the cluster does not serve the federation API yet.
var errNoCRDs = errors.New("the federation.antreaplus.io CRDs are not installed")

// readMembership returns the cluster's ClusterMembership, nil when it has
// none, and errNoCRDs when the cluster does not serve the type.
func readMembership(ctx context.Context, c Cluster, cl client.Client) (*federationv1alpha1.ClusterMembership, error) {
	m := &federationv1alpha1.ClusterMembership{}
	err := cl.Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, m)
	switch {
	case err == nil:
		return m, nil
	case apierrors.IsNotFound(err):
		return nil, nil
	case meta.IsNoMatchError(err):
		return nil, errNoCRDs
	default:
		return nil, fmt.Errorf("%s: reading its ClusterMembership: %w", c.Name, err)
	}
}

// installFederationCRDs installs the federation.antreaplus.io CRDs only:
// other groups (crd.antrea.io, MCS) may belong to other software in a real cluster.
func installFederationCRDs(ctx context.Context, r reporter, c Cluster) error {
	r.step(c.Name, "installing the federation.antreaplus.io CRDs ...")
	all, err := crd.Project()
	if err != nil {
		return err
	}
	var mine []*apiextensionsv1.CustomResourceDefinition
	for _, d := range all {
		if d.Spec.Group == federationv1alpha1.GroupVersion.Group {
			mine = append(mine, d)
		}
	}
	if err := crdinstall.Install(ctx, c.Config, mine); err != nil {
		return fmt.Errorf("%s: installing the federation CRDs: %w", c.Name, err)
	}
	return nil
}
