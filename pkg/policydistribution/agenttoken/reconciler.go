package agenttoken

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution"
)

// AgentlessSecretName is the Secret of the agentless consumer's token, in
// the controller's namespace.
const AgentlessSecretName = "policy-distribution-agentless-consumer"

// SecretName is the name of the token Secret of a VirtualMachine, in the
// VM's namespace: "vm-agent-token-<vm>", shortened with a digest of the
// name when that would be too long.
func SecretName(vm string) string {
	const prefix, maxLen = "vm-agent-token-", 253
	if len(prefix)+len(vm) <= maxLen {
		return prefix + vm
	}
	sum := sha256.Sum256([]byte(vm))
	keep := maxLen - len(prefix) - 17
	return prefix + vm[:keep] + "-" + hex.EncodeToString(sum[:8])
}

// Reconciler keeps one token Secret for every agented VirtualMachine and
// none for the others.
type Reconciler struct {
	Client client.Client
	// AgentlessNode is the agentless externalNode: a VM of that name gets
	// no token.
	AgentlessNode string
}

// The policy controller's rights for agent tokens (chart:
// files/rbac/policy-controller.yaml): the VMs, the token Secrets in their
// namespaces (owned by the VM, with blockOwnerDeletion) and the agentless
// consumer's in its own.
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=virtualmachines,verbs=get;list;watch
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=virtualmachines/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;delete

// SetupWithManager registers the reconciler.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("vm-agent-token").
		For(&cloudv1alpha1.VirtualMachine{}).
		Owns(&corev1.Secret{}).
		Complete(r)
}

// Reconcile creates the token Secret of an agented VM, owned by the VM so
// that it goes with it, and deletes it when the VM is no longer agented.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	vm := &cloudv1alpha1.VirtualMachine{}
	if err := r.Client.Get(ctx, req.NamespacedName, vm); err != nil {
		// A deleted VM's Secret goes with it (owner reference).
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	key := types.NamespacedName{Namespace: vm.Namespace, Name: SecretName(vm.Name)}
	secret := &corev1.Secret{}
	err := r.Client.Get(ctx, key, secret)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("reading the token Secret of %s: %w", req.NamespacedName, err)
	}
	want := vm.Spec.EnforcementMode == cloudv1alpha1.EnforcementAgented && vm.Name != r.AgentlessNode && vm.DeletionTimestamp == nil
	switch {
	case want && !exists:
		if err := r.Client.Create(ctx, agentSecret(vm, key.Name)); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, fmt.Errorf("creating the token Secret of %s: %w", req.NamespacedName, err)
		}
		log.FromContext(ctx).Info("Created the agent token Secret", "secret", key.Name)
	case !want && exists && metav1.IsControlledBy(secret, vm):
		if err := r.Client.Delete(ctx, secret); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("deleting the token Secret of %s: %w", req.NamespacedName, err)
		}
		log.FromContext(ctx).Info("Deleted the agent token Secret: the VM is not agented", "secret", key.Name)
	}
	return ctrl.Result{}, nil
}

func agentSecret(vm *cloudv1alpha1.VirtualMachine, name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: vm.Namespace,
			Labels:      map[string]string{policyv1alpha1.LabelDistributionToken: "agent"},
			Annotations: map[string]string{policyv1alpha1.AnnotationTokenVirtualMachine: vm.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: cloudv1alpha1.GroupVersion.String(), Kind: "VirtualMachine",
				Name: vm.Name, UID: vm.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
		},
		Type: policyv1alpha1.SecretTypeAgentToken,
		Data: map[string][]byte{policyv1alpha1.TokenSecretKey: []byte(policydistribution.NewToken())},
	}
}

// EnsureAgentless creates the agentless consumer's token Secret in
// namespace, and the namespace, if they do not exist. The namespace is
// created only when it is missing, which it never is for a controller
// running in it: its ServiceAccount needs no right to create namespaces.
func EnsureAgentless(ctx context.Context, c client.Client, namespace string) error {
	switch err := c.Get(ctx, client.ObjectKey{Name: namespace}, &corev1.Namespace{}); {
	case apierrors.IsNotFound(err):
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
		if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", namespace, err)
		}
	case err != nil:
		return fmt.Errorf("reading namespace %s: %w", namespace, err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: AgentlessSecretName, Namespace: namespace,
			Labels: map[string]string{policyv1alpha1.LabelDistributionToken: "agentless"}},
		Type: policyv1alpha1.SecretTypeAgentlessToken,
		Data: map[string][]byte{policyv1alpha1.TokenSecretKey: []byte(policydistribution.NewToken())},
	}
	if err := c.Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the agentless consumer's token Secret: %w", err)
	}
	return nil
}
