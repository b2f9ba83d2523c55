package binding

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func account(mods ...func(*cloudv1alpha1.CloudProviderAccount)) *cloudv1alpha1.CloudProviderAccount {
	a := &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "acct", Namespace: "tenant-a"},
		Spec:       cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS},
	}
	for _, m := range mods {
		m(a)
	}
	return a
}

func allowing(ns ...string) func(*cloudv1alpha1.CloudProviderAccount) {
	return func(a *cloudv1alpha1.CloudProviderAccount) { a.Spec.AllowedSelectorNamespaces = ns }
}

func boundTo(ns, name string) func(*cloudv1alpha1.CloudProviderAccount) {
	return func(a *cloudv1alpha1.CloudProviderAccount) {
		a.Status.Selector = &cloudv1alpha1.NamespacedObjectReference{Namespace: ns, Name: name}
	}
}

// sel is a selector ns/name created age seconds after t0, referring to
// tenant-a/acct.
func sel(ns, name string, age int, mods ...func(*cloudv1alpha1.CloudEntitySelector)) cloudv1alpha1.CloudEntitySelector {
	s := cloudv1alpha1.CloudEntitySelector{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Second))},
		Spec:       cloudv1alpha1.CloudEntitySelectorSpec{AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "acct", Namespace: "tenant-a"}},
	}
	for _, m := range mods {
		m(&s)
	}
	return s
}

func kinds(k ...cloudv1alpha1.CloudNativeServiceKind) func(*cloudv1alpha1.CloudEntitySelector) {
	return func(s *cloudv1alpha1.CloudEntitySelector) {
		s.Spec.CloudNativeServices = []cloudv1alpha1.CloudNativeServiceMatch{{Kinds: k}}
	}
}

func deleting(s *cloudv1alpha1.CloudEntitySelector) {
	now := metav1.NewTime(t0)
	s.DeletionTimestamp = &now
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name      string
		account   *cloudv1alpha1.CloudProviderAccount
		selectors []cloudv1alpha1.CloudEntitySelector
		bound     string            // ns/name, "" for none
		reasons   map[string]string // ns/name -> reason
		message   string            // in the message of the first refused selector
	}{
		{name: "one selector in the account's namespace", account: account(),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-a", "s", 0)},
			bound:     "tenant-a/s", reasons: map[string]string{"tenant-a/s": "Accepted"}},
		{name: "missing account", account: nil,
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-a", "s", 0)},
			reasons:   map[string]string{"tenant-a/s": "AccountNotFound"}, message: "tenant-a/acct not found"},
		{name: "oldest of two wins", account: account(),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-a", "young", 5), sel("tenant-a", "old", 1)},
			bound:     "tenant-a/old", reasons: map[string]string{"tenant-a/old": "Accepted", "tenant-a/young": "AccountInUse"},
			message: "already used by CloudEntitySelector tenant-a/old"},
		{name: "same second: namespace then name", account: account(allowing("*")),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-b", "a", 1), sel("tenant-a", "z", 1)},
			bound:     "tenant-a/z", reasons: map[string]string{"tenant-a/z": "Accepted", "tenant-b/a": "AccountInUse"}},
		{name: "binding is sticky", account: account(boundTo("tenant-a", "young")),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-a", "young", 5), sel("tenant-a", "old", 1)},
			bound:     "tenant-a/young", reasons: map[string]string{"tenant-a/young": "Accepted", "tenant-a/old": "AccountInUse"}},
		{name: "stale binding to a deleted selector", account: account(boundTo("tenant-a", "gone")),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-a", "s", 5)},
			bound:     "tenant-a/s", reasons: map[string]string{"tenant-a/s": "Accepted"}},
		{name: "cross-namespace refused", account: account(),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-b", "s", 0)},
			reasons:   map[string]string{"tenant-b/s": "NamespaceNotAllowed"}, message: "allowedSelectorNamespaces"},
		{name: "cross-namespace allowed by name", account: account(allowing("tenant-b")),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-b", "s", 0)},
			bound:     "tenant-b/s", reasons: map[string]string{"tenant-b/s": "Accepted"}},
		{name: "refused selectors do not take the account", account: account(),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-b", "early", 0), sel("tenant-a", "late", 9)},
			bound:     "tenant-a/late", reasons: map[string]string{"tenant-b/early": "NamespaceNotAllowed", "tenant-a/late": "Accepted"}},
		{name: "service kind of the other cloud", account: account(),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-a", "s", 0, kinds(cloudv1alpha1.ServiceKindAWSRDS, cloudv1alpha1.ServiceKindAzureSQL))},
			reasons:   map[string]string{"tenant-a/s": "ProviderMismatch"}, message: "AzureSQL is not a kind of AWS"},
		{name: "a selector being deleted hands over", account: account(boundTo("tenant-a", "old")),
			selectors: []cloudv1alpha1.CloudEntitySelector{sel("tenant-a", "old", 0, deleting), sel("tenant-a", "new", 9)},
			bound:     "tenant-a/new", reasons: map[string]string{"tenant-a/old": ReasonDeleting, "tenant-a/new": "Accepted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Resolve(tc.account, tc.selectors)
			got := ""
			if res.Bound != nil {
				got = res.Bound.String()
			}
			if got != tc.bound {
				t.Errorf("bound = %q; want %q", got, tc.bound)
			}
			checked := false
			for key, want := range tc.reasons {
				ns, name, _ := strings.Cut(key, "/")
				v, ok := res.Verdicts[types.NamespacedName{Namespace: ns, Name: name}]
				if !ok || v.Reason != want || v.Accepted != (want == "Accepted") {
					t.Errorf("verdict of %s = %+v; want reason %s", key, v, want)
				}
				if !v.Accepted && tc.message != "" && !checked && strings.Contains(v.Message, tc.message) {
					checked = true
				}
			}
			if tc.message != "" && !checked {
				t.Errorf("no refusal says %q: %+v", tc.message, res.Verdicts)
			}
		})
	}
}
