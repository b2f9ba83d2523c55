package binding

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// IndexAccount is the field index of CloudEntitySelectors by the
// "namespace/name" of the account they refer to.
const IndexAccount = "cloud.antreaplus.io/account"

// AddIndex registers IndexAccount with a manager's field indexer.
func AddIndex(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, &cloudv1alpha1.CloudEntitySelector{}, IndexAccount, func(o client.Object) []string {
		return []string{AccountKey(o.(*cloudv1alpha1.CloudEntitySelector)).String()}
	})
}

// Selectors lists the selectors that refer to an account, through a reader
// with IndexAccount.
func Selectors(ctx context.Context, r client.Reader, acct types.NamespacedName) ([]cloudv1alpha1.CloudEntitySelector, error) {
	var list cloudv1alpha1.CloudEntitySelectorList
	if err := r.List(ctx, &list, client.MatchingFields{IndexAccount: acct.String()}); err != nil {
		return nil, fmt.Errorf("listing the selectors of account %s: %w", acct, err)
	}
	return list.Items, nil
}

// Bound returns the selector an account is bound to (nil when none), reading
// the account's selectors through r. acct may be nil when it does not exist.
func Bound(ctx context.Context, r client.Reader, key types.NamespacedName, acct *cloudv1alpha1.CloudProviderAccount) (*cloudv1alpha1.CloudEntitySelector, Result, error) {
	sels, err := Selectors(ctx, r, key)
	if err != nil {
		return nil, Result{}, err
	}
	res := Resolve(acct, sels)
	if res.Bound == nil {
		return nil, res, nil
	}
	for i := range sels {
		if sels[i].Namespace == res.Bound.Namespace && sels[i].Name == res.Bound.Name {
			return &sels[i], res, nil
		}
	}
	return nil, res, nil
}
