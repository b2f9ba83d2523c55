package sandbox

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// A light member (Options.Light) is what the federation needs of a member
// and no more: etcd and a real kube-apiserver. kwokctl starts neither its
// controller manager, its scheduler nor its kwok controller, and the
// harness writes what those would have:
//
//   - nodes, Ready from their creation (nobody heartbeats them, and nobody
//     marks them NotReady either): NodePort exports take their addresses;
//   - the federation account's token: the token controller of the
//     controller manager fills the Secret a join asks for; here the
//     API server's own TokenRequest does, bound to that Secret (deleting the
//     Secret revokes it, as with the token controller's);
//   - Pods and their EndpointSlices: none are written; a test or bench that
//     needs endpoints exports NodePort Services, or writes EndpointSlices.
//
// Left out for good: Namespace deletion and garbage collection (a deleted
// Namespace stays Terminating). The federation reads and writes only
// Leases, its custom resources, Services, EndpointSlices, Nodes and
// ServiceImports, each straight from the API server: none of that passes
// through the parts left out, so its propagation and election figures hold
// for full members (docs/scale.md).
var lightDisabled = []string{"kube-controller-manager", "kube-scheduler", "kwok-controller"}

// lightTokenLifetime is how long the federation account's token of a light
// member lasts: a sandbox does not live that long.
const lightTokenLifetime = 365 * 24 * time.Hour

// fillFederationToken writes the federation account, its token Secret, and
// the token in it, as the token controller would once a join asks for it.
// A Secret already holding a token is left alone.
func fillFederationToken(ctx context.Context, cs kubernetes.Interface) error {
	ns := federationv1alpha1.SystemNamespace
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating Namespace %s: %w", ns, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: federationv1alpha1.FederationServiceAccount}}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating ServiceAccount %s/%s: %w", ns, sa.Name, err)
	}
	secret, err := cs.CoreV1().Secrets(ns).Get(ctx, federationv1alpha1.FederationTokenSecret, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		secret, err = cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: federationv1alpha1.FederationTokenSecret,
				Annotations: map[string]string{corev1.ServiceAccountNameKey: sa.Name}},
			Type: corev1.SecretTypeServiceAccountToken,
		}, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("the token Secret %s/%s: %w", ns, federationv1alpha1.FederationTokenSecret, err)
	}
	if len(secret.Data[corev1.ServiceAccountTokenKey]) > 0 {
		return nil
	}
	seconds := int64(lightTokenLifetime / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: &seconds,
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Secret", APIVersion: "v1", Name: secret.Name, UID: secret.UID},
	}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("requesting a token of ServiceAccount %s/%s: %w", ns, sa.Name, err)
	}
	if secret.Data == nil {
		secret.Data = map[string][]byte{}
	}
	secret.Data[corev1.ServiceAccountTokenKey] = []byte(tr.Status.Token)
	if _, err := cs.CoreV1().Secrets(ns).Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing the token into Secret %s/%s: %w", ns, secret.Name, err)
	}
	return nil
}
