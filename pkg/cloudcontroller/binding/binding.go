package binding

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// Verdict is what a selector's Accepted condition says.
type Verdict struct {
	Accepted bool
	// Reason is one of the cloudv1alpha1.SelectorReason* constants.
	Reason  string
	Message string
}

// ReasonDeleting: the selector is being deleted and binds nothing.
const ReasonDeleting = "Deleting"

// Result is the binding of one account.
type Result struct {
	// Bound is the selector the account is bound to, nil when none is.
	Bound *types.NamespacedName
	// Verdicts has one entry per selector given to Resolve.
	Verdicts map[types.NamespacedName]Verdict
}

// AccountKey is the account a selector refers to.
func AccountKey(sel *cloudv1alpha1.CloudEntitySelector) types.NamespacedName {
	ns := sel.Spec.AccountRef.Namespace
	if ns == "" {
		ns = sel.Namespace
	}
	return types.NamespacedName{Namespace: ns, Name: sel.Spec.AccountRef.Name}
}

// NamespaceAllowed reports whether selectors in ns may use the account.
func NamespaceAllowed(acct *cloudv1alpha1.CloudProviderAccount, ns string) bool {
	return ns == acct.Namespace || slices.Contains(acct.Spec.AllowedSelectorNamespaces, ns) ||
		slices.Contains(acct.Spec.AllowedSelectorNamespaces, "*")
}

// Resolve binds the account (nil when it does not exist) to at most one of
// the selectors, which must all refer to it.
func Resolve(acct *cloudv1alpha1.CloudProviderAccount, selectors []cloudv1alpha1.CloudEntitySelector) Result {
	res := Result{Verdicts: make(map[types.NamespacedName]Verdict, len(selectors))}
	var eligible []*cloudv1alpha1.CloudEntitySelector
	for i := range selectors {
		sel := &selectors[i]
		key := types.NamespacedName{Namespace: sel.Namespace, Name: sel.Name}
		if v, ok := precheck(acct, sel); !ok {
			res.Verdicts[key] = v
			continue
		}
		eligible = append(eligible, sel)
	}
	winner := choose(acct, eligible)
	if winner == nil {
		return res
	}
	bound := types.NamespacedName{Namespace: winner.Namespace, Name: winner.Name}
	res.Bound = &bound
	for _, sel := range eligible {
		key := types.NamespacedName{Namespace: sel.Namespace, Name: sel.Name}
		if key == bound {
			res.Verdicts[key] = Verdict{Accepted: true, Reason: cloudv1alpha1.SelectorReasonAccepted,
				Message: fmt.Sprintf("bound to CloudProviderAccount %s/%s", acct.Namespace, acct.Name)}
			continue
		}
		res.Verdicts[key] = Verdict{Reason: cloudv1alpha1.SelectorReasonAccountInUse, Message: fmt.Sprintf(
			"CloudProviderAccount %s/%s is already used by CloudEntitySelector %s; an account has one selector: "+
				"add what this one selects to that selector, or use another account", acct.Namespace, acct.Name, bound)}
	}
	return res
}

// precheck refuses a selector for reasons of its own.
func precheck(acct *cloudv1alpha1.CloudProviderAccount, sel *cloudv1alpha1.CloudEntitySelector) (Verdict, bool) {
	ref := AccountKey(sel)
	switch {
	case acct == nil:
		return Verdict{Reason: cloudv1alpha1.SelectorReasonAccountNotFound,
			Message: fmt.Sprintf("CloudProviderAccount %s not found", ref)}, false
	case !NamespaceAllowed(acct, sel.Namespace):
		return Verdict{Reason: cloudv1alpha1.SelectorReasonNamespaceNotAllowed, Message: fmt.Sprintf(
			"CloudProviderAccount %s does not allow selectors from namespace %q: add it to the account's spec.allowedSelectorNamespaces",
			ref, sel.Namespace)}, false
	case sel.DeletionTimestamp != nil:
		return Verdict{Reason: ReasonDeleting, Message: "the selector is being deleted"}, false
	}
	if kind, ok := foreignKind(acct.Spec.Provider, sel); ok {
		return Verdict{Reason: cloudv1alpha1.SelectorReasonProviderMismatch, Message: fmt.Sprintf(
			"cloudNativeServices kind %s is not a kind of %s, the provider of CloudProviderAccount %s", kind, acct.Spec.Provider, ref)}, false
	}
	return Verdict{}, true
}

// foreignKind returns a service kind of the selector that is not of cloud.
func foreignKind(cloud cloudv1alpha1.CloudProvider, sel *cloudv1alpha1.CloudEntitySelector) (cloudv1alpha1.CloudNativeServiceKind, bool) {
	for _, m := range sel.Spec.CloudNativeServices {
		for _, k := range m.Kinds {
			if !strings.HasPrefix(string(k), string(cloud)) {
				return k, true
			}
		}
	}
	return "", false
}

// choose keeps the selector the account is bound to, else takes the oldest.
func choose(acct *cloudv1alpha1.CloudProviderAccount, eligible []*cloudv1alpha1.CloudEntitySelector) *cloudv1alpha1.CloudEntitySelector {
	if len(eligible) == 0 {
		return nil
	}
	if cur := acct.Status.Selector; cur != nil {
		for _, sel := range eligible {
			if sel.Namespace == cur.Namespace && sel.Name == cur.Name {
				return sel
			}
		}
	}
	return slices.MinFunc(eligible, func(a, b *cloudv1alpha1.CloudEntitySelector) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
