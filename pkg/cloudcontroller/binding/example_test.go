package binding_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
)

// Three selectors want account infra/aws: the oldest of those allowed
// binds it; one in a Namespace the account does not allow is refused, and
// so is the younger one, naming the bound selector.
func ExampleResolve() {
	acct := &cloudv1alpha1.CloudProviderAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "aws"},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{AllowedSelectorNamespaces: []string{"shop"}}}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	sel := func(ns, name string, age time.Duration) cloudv1alpha1.CloudEntitySelector {
		return cloudv1alpha1.CloudEntitySelector{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(t0.Add(-age))},
			Spec:       cloudv1alpha1.CloudEntitySelectorSpec{AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "aws", Namespace: "infra"}},
		}
	}
	selectors := []cloudv1alpha1.CloudEntitySelector{
		sel("shop", "prod", time.Hour), sel("shop", "dev", time.Minute), sel("other", "all", 2*time.Hour)}
	res := binding.Resolve(acct, selectors)
	fmt.Println("bound:", *res.Bound)
	for _, s := range selectors {
		v := res.Verdicts[types.NamespacedName{Namespace: s.Namespace, Name: s.Name}]
		fmt.Println(s.Namespace+"/"+s.Name, v.Accepted, v.Reason)
	}
	// Output:
	// bound: shop/prod
	// shop/prod true Accepted
	// shop/dev false AccountInUse
	// other/all false NamespaceNotAllowed
}
