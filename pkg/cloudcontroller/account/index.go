package account

import (
	"cmp"
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// IndexSecret is the field index of CloudProviderAccounts by the
// "namespace/name" of their credentials Secret.
const IndexSecret = "cloud.antreaplus.io/secret"

// AddIndex registers IndexSecret with a manager's field indexer.
func AddIndex(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, &cloudv1alpha1.CloudProviderAccount{}, IndexSecret, func(o client.Object) []string {
		a := o.(*cloudv1alpha1.CloudProviderAccount)
		var ref cloudv1alpha1.SecretReference
		switch {
		case a.Spec.AWS != nil:
			ref = a.Spec.AWS.Credentials.SecretRef
		case a.Spec.Azure != nil:
			ref = a.Spec.Azure.Credentials.SecretRef
		default:
			return nil
		}
		return []string{cmp.Or(ref.Namespace, a.Namespace) + "/" + ref.Name}
	})
}
