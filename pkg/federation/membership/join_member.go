package membership

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// setUpMember writes the member's identity and federation account, and
// reads the account's token.
func (p *joinPlan) setUpMember(ctx context.Context, r reporter) error {
	name := p.member.Name
	if p.installCRDs {
		if err := installFederationCRDs(ctx, r, p.member); err != nil {
			return err
		}
		cl, err := p.member.Client() // a fresh client learns the new types
		if err != nil {
			return err
		}
		p.memberClient = cl
	}
	cl := p.memberClient
	if err := ensureNamespace(ctx, cl, r, name); err != nil {
		return err
	}
	r.step(name, "writing its identity: cluster %s of federation %s (supervisor: %t) ...", p.reg.ClusterID, p.reg.FederationID, p.reg.Supervisor)
	if err := ensureMembership(ctx, cl, p.reg.identity, p.reg.Labels); err != nil {
		return err
	}
	r.step(name, "creating the federation account %s/%s and its least-privilege roles ...", federationv1alpha1.SystemNamespace, federationv1alpha1.FederationServiceAccount)
	if err := ensureAccount(ctx, cl, p.reg.Supervisor); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r.step(name, "waiting for the token of the federation account ...")
	token, err := waitToken(ctx, cl, p.tokenTimeout)
	if err != nil {
		return fmt.Errorf("%s: the token controller did not fill Secret %s/%s within %s (%w): check that kube-controller-manager runs with --service-account-private-key-file and --root-ca-file, then join again",
			name, federationv1alpha1.SystemNamespace, federationv1alpha1.FederationTokenSecret, p.tokenTimeout, err)
	}
	p.reg.Token = token
	return nil
}

// ensureMembership writes the cluster's identity; its labels are added to
// those it has (as in the registry: joining again without labels keeps them).
// The operator's spec.externalDNS is kept: joining never sets it.
func ensureMembership(ctx context.Context, cl client.Client, id identity, labels map[string]string) error {
	m := membershipObject(id, labels)
	if err := ensure(ctx, cl, m, func(have, want *federationv1alpha1.ClusterMembership) {
		have.Spec = joinedSpec(have.Spec, want.Spec)
	}); err != nil {
		return err
	}
	stored := &federationv1alpha1.ClusterMembership{}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(m), stored); err != nil {
		return fmt.Errorf("reading back the ClusterMembership: %w", err)
	}
	if stored.Status.JoinTime != nil {
		return nil
	}
	now := metav1.Now()
	stored.Status.JoinTime = &now
	if err := cl.Status().Update(ctx, stored); err != nil {
		return fmt.Errorf("recording the join time: %w", err)
	}
	return nil
}

// ensureAccount writes the ServiceAccount, its token Secret and its RBAC.
func ensureAccount(ctx context.Context, cl client.Client, supervisor bool) error {
	if err := ensure(ctx, cl, serviceAccount(), keepFields); err != nil {
		return err
	}
	err := ensure(ctx, cl, tokenSecret(), func(have, want *corev1.Secret) {
		if have.Annotations == nil {
			have.Annotations = map[string]string{}
		}
		have.Annotations[corev1.ServiceAccountNameKey] = want.Annotations[corev1.ServiceAccountNameKey]
	})
	if err != nil {
		return err
	}
	roles, bindings := accessObjects(supervisor)
	for _, ro := range roles {
		if err := ensure(ctx, cl, ro, func(have, want *rbacv1.Role) { have.Rules = want.Rules }); err != nil {
			return err
		}
	}
	for _, b := range bindings {
		if err := ensure(ctx, cl, b, copyRoleBinding); err != nil {
			return err
		}
	}
	if err := ensure(ctx, cl, clusterRole(), func(have, want *rbacv1.ClusterRole) { have.Rules = want.Rules }); err != nil {
		return err
	}
	if err := ensure(ctx, cl, clusterRoleBinding(), func(have, want *rbacv1.ClusterRoleBinding) {
		have.RoleRef, have.Subjects = want.RoleRef, want.Subjects
	}); err != nil {
		return err
	}
	return ensure(ctx, cl, flowSchema(), func(have, want *flowcontrolv1.FlowSchema) { have.Spec = want.Spec })
}

func copyRoleBinding(have, want *rbacv1.RoleBinding) {
	have.RoleRef, have.Subjects = want.RoleRef, want.Subjects
}

// waitToken waits until the token controller has filled the account's token.
func waitToken(ctx context.Context, cl client.Client, timeout time.Duration) ([]byte, error) {
	var token []byte
	var last error
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		s := &corev1.Secret{}
		if last = cl.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.FederationTokenSecret}, s); last != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		token = s.Data[corev1.ServiceAccountTokenKey]
		return len(token) > 0, nil
	})
	if err != nil && last != nil {
		return nil, fmt.Errorf("%w; last error: %w", err, last)
	}
	return token, err
}

// joinedSpec is the membership's spec after joining: the identity joining
// writes (want), with the operator's spec.externalDNS of have kept when
// joining sets none (dropping it, even for a moment, would unpublish the
// federation's names).
func joinedSpec(have, want federationv1alpha1.ClusterMembershipSpec) federationv1alpha1.ClusterMembershipSpec {
	if want.ExternalDNS == nil {
		want.ExternalDNS = have.ExternalDNS
	}
	return want
}
