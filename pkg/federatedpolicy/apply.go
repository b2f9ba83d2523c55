package federatedpolicy

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
)

// errRetry asks for a reconcile again on fresh data (the cache lagged,
// or an object changed meanwhile).
var errRetry = errors.New("retry on fresh data")

// applier writes the derived objects of one federated policy.
type applier struct {
	client.Client
	policy *policyv1alpha1.FederatedNetworkPolicy
	wrote  int
}

// apply writes res: every Group (created or updated when it differs), then
// the policy, then deletes the Groups of p no longer wanted. It writes
// nothing when a derived name belongs to an object p does not manage.
func (a *applier) apply(ctx context.Context, res translate.Result) (outcome, error) {
	if res.Report.Problem != nil {
		return outcome{failure: res.Report.Problem}, nil
	}
	var existingPolicy *antreav1beta1.NetworkPolicy
	if res.Policy != nil {
		existingPolicy = &antreav1beta1.NetworkPolicy{}
		if taken, err := a.read(ctx, "NetworkPolicy", res.Policy.Name, existingPolicy); err != nil || taken != nil {
			return outcome{failure: taken}, err
		} else if existingPolicy.UID == "" {
			existingPolicy = nil
		}
	}
	existingGroups := make([]*antreav1beta1.Group, len(res.Groups))
	for i, g := range res.Groups {
		existingGroups[i] = &antreav1beta1.Group{}
		if taken, err := a.read(ctx, "Group", g.Name, existingGroups[i]); err != nil || taken != nil {
			return outcome{failure: taken}, err
		}
	}
	out, err := a.write(ctx, res, existingPolicy, existingGroups)
	var rejected *rejectedError
	if errors.As(err, &rejected) {
		return outcome{failure: &translate.Problem{Reason: ReasonDerivedObjectRejected, Message: rejected.Error()}}, nil
	}
	return out, err
}

func (a *applier) write(ctx context.Context, res translate.Result, policy *antreav1beta1.NetworkPolicy, groups []*antreav1beta1.Group) (outcome, error) {
	for i, g := range res.Groups {
		if err := a.writeGroup(ctx, groups[i], g); err != nil {
			return outcome{}, err
		}
	}
	out := outcome{groups: len(res.Groups)}
	var err error
	if res.Policy != nil {
		out.derived, err = a.writePolicy(ctx, policy, res.Policy)
	} else {
		err = a.deletePolicy(ctx)
	}
	if err != nil {
		return outcome{}, err
	}
	return out, a.deleteStaleGroups(ctx, res.Groups)
}

// read reads the object of a derived name into obj (left empty when there
// is none). It returns a NameTaken problem when the object is not managed
// by the policy; one of an earlier policy of the same name is deleted.
func (a *applier) read(ctx context.Context, kind, name string, obj client.Object) (*translate.Problem, error) {
	err := a.Get(ctx, types.NamespacedName{Namespace: a.policy.Namespace, Name: name}, obj)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s %s/%s: %w", kind, a.policy.Namespace, name, err)
	case a.owned(obj):
		return nil, nil
	case a.earlier(obj):
		// Left by a deleted policy of the same name: the garbage collector
		// would delete it; do it now.
		return nil, errors.Join(a.delete(ctx, kind, obj), errRetry)
	}
	return &translate.Problem{Reason: ReasonNameTaken, Message: fmt.Sprintf(
		"%s %s/%s exists and is not managed by this federated policy: it is left alone; delete or rename it, or rename the federated policy",
		kind, a.policy.Namespace, name)}, nil
}

// owned is true for an object this policy manages.
func (a *applier) owned(obj client.Object) bool {
	ref := metav1.GetControllerOf(obj)
	return obj.GetLabels()[federationv1alpha1.LabelManagedBy] == policyv1alpha1.ManagedByMemberController && ref != nil && ref.UID == a.policy.UID
}

// earlier is true for an object managed by an earlier federated policy of
// the same name.
func (a *applier) earlier(obj client.Object) bool {
	ref := metav1.GetControllerOf(obj)
	return obj.GetLabels()[federationv1alpha1.LabelManagedBy] == policyv1alpha1.ManagedByMemberController && ref != nil &&
		ref.Kind == "FederatedNetworkPolicy" && ref.Name == a.policy.Name && ref.UID != a.policy.UID
}

func (a *applier) writeGroup(ctx context.Context, have, want *antreav1beta1.Group) error {
	if have.UID == "" {
		return a.create(ctx, "Group", want)
	}
	if equality.Semantic.DeepEqual(have.Spec, want.Spec) && sameMeta(have, want) {
		return nil
	}
	have.Spec = want.Spec
	setMeta(have, want)
	return a.update(ctx, "Group", have)
}

func (a *applier) writePolicy(ctx context.Context, have, want *antreav1beta1.NetworkPolicy) (*antreav1beta1.NetworkPolicy, error) {
	if have == nil {
		return want, a.create(ctx, "NetworkPolicy", want)
	}
	if equality.Semantic.DeepEqual(have.Spec, want.Spec) && sameMeta(have, want) {
		return have, nil
	}
	have.Spec = want.Spec
	setMeta(have, want)
	return have, a.update(ctx, "NetworkPolicy", have)
}

// sameMeta is true when have carries want's labels and owner references.
func sameMeta(have, want client.Object) bool {
	for k, v := range want.GetLabels() {
		if have.GetLabels()[k] != v {
			return false
		}
	}
	return equality.Semantic.DeepEqual(have.GetOwnerReferences(), want.GetOwnerReferences())
}

func setMeta(have, want client.Object) {
	labels := maps.Clone(have.GetLabels())
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, want.GetLabels())
	have.SetLabels(labels)
	have.SetOwnerReferences(want.GetOwnerReferences())
}

// deletePolicy deletes the derived policy when no rule is left.
func (a *applier) deletePolicy(ctx context.Context) error {
	np := &antreav1beta1.NetworkPolicy{}
	err := a.Get(ctx, types.NamespacedName{Namespace: a.policy.Namespace, Name: translate.PolicyName(a.policy.Name)}, np)
	if apierrors.IsNotFound(err) || (err == nil && !a.owned(np)) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the derived NetworkPolicy: %w", err)
	}
	return a.delete(ctx, "NetworkPolicy", np)
}

// deleteStaleGroups deletes the Groups of the policy that are not wanted.
func (a *applier) deleteStaleGroups(ctx context.Context, wanted []*antreav1beta1.Group) error {
	keep := map[string]bool{}
	for _, g := range wanted {
		keep[g.Name] = true
	}
	list := &antreav1beta1.GroupList{}
	if err := a.List(ctx, list, client.InNamespace(a.policy.Namespace),
		client.MatchingLabels{policyv1alpha1.LabelFederatedPolicy: translate.PolicyLabelValue(a.policy.Name)}); err != nil {
		return fmt.Errorf("listing the derived Groups: %w", err)
	}
	for i := range list.Items {
		g := &list.Items[i]
		if !keep[g.Name] && a.owned(g) {
			if err := a.delete(ctx, "Group", g); err != nil {
				return err
			}
		}
	}
	return nil
}
