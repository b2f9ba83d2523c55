package manager

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// The federation manager's rights in its supervisor (chart: files/rbac/federation-manager.yaml):
// the registry and the member credentials it names, in the registry's
// namespace (its cache holds only that namespace). In members it acts with
// the federation account (package membership's rbac.go).
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=memberclusters,verbs=get;list;watch,namespace=antreaplus-system
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch,namespace=antreaplus-system

// registryReconciler keeps one session per MemberCluster, restarting it when
// the member's address or credentials change.
type registryReconciler struct {
	m *Manager
}

func (m *Manager) setupRegistryController(mgr ctrl.Manager) error {
	// A Secret change reconciles the MemberClusters that use it.
	secretToMembers := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		list := &federationv1alpha1.MemberClusterList{}
		if err := m.local.List(ctx, list, client.InNamespace(o.GetNamespace())); err != nil {
			return nil
		}
		var out []reconcile.Request
		for _, mc := range list.Items {
			if mc.Spec.CredentialsSecretRef.Name == o.GetName() {
				out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: mc.Namespace, Name: mc.Name}})
			}
		}
		return out
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("registry").
		// Only what a session is built from: the spec (its generation), the
		// labels (export scopes select them) and deletion. Not the status:
		// this manager writes it, and every write would reconcile again.
		For(&federationv1alpha1.MemberCluster{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}))).
		Watches(&corev1.Secret{}, secretToMembers).
		Complete(&registryReconciler{m: m})
}

// Reconcile starts, restarts or stops the session of one MemberCluster.
func (r *registryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	m := r.m
	logger := log.FromContext(ctx)
	if req.Namespace != m.opts.Namespace {
		return ctrl.Result{}, nil
	}
	mc := &federationv1alpha1.MemberCluster{}
	err := m.local.Get(ctx, req.NamespacedName, mc)
	if apierrors.IsNotFound(err) || (err == nil && !mc.DeletionTimestamp.IsZero()) {
		m.removeMember(req.Name)
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading MemberCluster %s: %w", req.Name, err)
	}
	id := mc.Spec.ClusterID
	creds, credErr := r.credentials(ctx, mc)
	key := sessionKey(mc, creds)
	// Broken credentials are reported in the registry status, not as a
	// reconcile error; the member is looked at again shortly.
	retryLater := ctrl.Result{RequeueAfter: 10 * time.Second}

	m.mu.Lock()
	if old, ok := m.members[id]; !ok || old.Supervisor != mc.Spec.Supervisor {
		m.registryChanges++
	}
	m.members[id] = mc.Spec
	if !maps.Equal(m.labels[id], mc.Labels) {
		m.changes++
	}
	m.labels[id] = maps.Clone(mc.Labels)
	old := m.sessions[id]
	m.mu.Unlock()
	switch {
	case old != nil && old.key == key && old.setupErr == nil:
		return ctrl.Result{}, nil
	case old != nil && old.key == key && credErr != nil:
		// The same unusable credentials: a new Secret changes the key.
		return retryLater, nil //nolint:nilerr // reported in the registry status
	case old != nil && old.key == key:
		// The last start failed otherwise (the member's client could not be
		// built): try again, every retryLater until it works.
		logger.Info("Connecting to the member again", "member", id, "lastErr", old.setupErr)
		old.stop()
	case old != nil:
		logger.Info("Member changed: reconnecting", "member", id)
		old.stop()
	}
	s := newSession(m, mc, key)
	if credErr != nil {
		s.setupErr = credErr
		logger.Info("Member credentials unusable", "member", id, "err", credErr)
	} else if err := s.start(creds); err != nil {
		s.setupErr = err
		logger.Info("Cannot connect to member", "member", id, "err", err)
	}
	m.mu.Lock()
	m.sessions[id] = s
	m.changes++
	m.mu.Unlock()
	sessionsGauge.Set(float64(len(m.snapshot())))
	if s.setupErr != nil {
		return retryLater, nil //nolint:nilerr // reported in the registry status
	}
	return ctrl.Result{}, nil
}

// removeMember stops the session of a MemberCluster that is gone. The
// registry object's name is the member's clusterID.
func (m *Manager) removeMember(name string) {
	m.mu.Lock()
	s := m.sessions[name]
	delete(m.sessions, name)
	if _, ok := m.members[name]; ok {
		m.registryChanges++
	}
	delete(m.members, name)
	delete(m.labels, name)
	m.changes++
	m.mu.Unlock()
	if s != nil {
		s.stop()
	}
	sessionsGauge.Set(float64(len(m.snapshot())))
}

// credentials reads a member's token and CA from its Secret.
func (r *registryReconciler) credentials(ctx context.Context, mc *federationv1alpha1.MemberCluster) (credentials, error) {
	sec := &corev1.Secret{}
	key := types.NamespacedName{Namespace: mc.Namespace, Name: mc.Spec.CredentialsSecretRef.Name}
	if err := r.m.local.Get(ctx, key, sec); err != nil {
		if apierrors.IsNotFound(err) {
			return credentials{}, &credentialError{reason: federationv1alpha1.ReasonSecretMissing,
				msg: fmt.Sprintf("Secret %s not found: join the member again with 'antreaplus federation join'", key)}
		}
		return credentials{}, fmt.Errorf("reading Secret %s: %w", key, err)
	}
	c := credentials{token: string(sec.Data[federationv1alpha1.CredentialTokenKey]), ca: sec.Data[federationv1alpha1.CredentialCAKey], version: sec.ResourceVersion}
	for k, v := range map[string]int{federationv1alpha1.CredentialTokenKey: len(c.token), federationv1alpha1.CredentialCAKey: len(c.ca)} {
		if v == 0 {
			return c, &credentialError{reason: federationv1alpha1.ReasonSecretMissing,
				msg: fmt.Sprintf("Secret %s has no %q key: join the member again with 'antreaplus federation join'", key, k)}
		}
	}
	return c, nil
}

type credentials struct {
	token   string
	ca      []byte
	version string
}

// credentialError is a problem with a member's credentials, with its condition reason.
type credentialError struct {
	reason, msg string
}

func (e *credentialError) Error() string { return e.msg }

// sessionKey changes when anything the session was built from changes.
func sessionKey(mc *federationv1alpha1.MemberCluster, c credentials) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%t\x00%s", mc.Spec.Server, mc.Spec.ClusterID, mc.Spec.Supervisor, c.version)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
