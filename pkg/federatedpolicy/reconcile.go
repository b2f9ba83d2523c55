package federatedpolicy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federatedpolicy/translate"
)

// Requeue delays.
const (
	retryAfter     = 100 * time.Millisecond
	nameTakenAfter = 30 * time.Second
)

// Reconcile translates one federated policy, writes what changed of its
// derived objects, then its status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	p := &policyv1alpha1.FederatedNetworkPolicy{}
	if err := r.Get(ctx, req.NamespacedName, p); apierrors.IsNotFound(err) {
		return ctrl.Result{}, r.cleanUp(ctx, req.NamespacedName)
	} else if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading FederatedNetworkPolicy %s: %w", req, err)
	}
	if !p.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	in, err := r.inputs(ctx, p)
	if err != nil {
		translations.WithLabelValues(resultError).Inc()
		return ctrl.Result{}, err
	}
	start := time.Now()
	res := translate.Translate(p, in)
	translateSeconds.Observe(time.Since(start).Seconds())
	a := &applier{Client: r.Client, policy: p}
	out, err := a.apply(ctx, res)
	if err == nil {
		err = r.writeStatus(ctx, p, computeStatus(p, res.Report, out, r.AntreaInstalled))
	}
	if errors.Is(err, errRetry) {
		translations.WithLabelValues(resultError).Inc()
		return ctrl.Result{RequeueAfter: retryAfter}, nil
	}
	if err != nil {
		translations.WithLabelValues(resultError).Inc()
		return ctrl.Result{}, fmt.Errorf("realising FederatedNetworkPolicy %s: %w", req, err)
	}
	return r.done(ctx, p, out, a.wrote), nil
}

// done counts and logs a completed reconcile.
func (r *Reconciler) done(ctx context.Context, p *policyv1alpha1.FederatedNetworkPolicy, out outcome, wrote int) ctrl.Result {
	logger := log.FromContext(ctx)
	switch {
	case out.failure != nil:
		translations.WithLabelValues(resultFailed).Inc()
		logger.Info("Federated policy not translated", "reason", out.failure.Reason, "message", out.failure.Message)
		if out.failure.Reason == ReasonNameTaken {
			// The name may be freed without any event we watch (a Group).
			return ctrl.Result{RequeueAfter: nameTakenAfter}
		}
	case wrote > 0:
		translations.WithLabelValues(resultWritten).Inc()
		logger.V(1).Info("Derived objects written", "writes", wrote, "phase", p.Status.Phase)
	default:
		translations.WithLabelValues(resultUnchanged).Inc()
	}
	return ctrl.Result{}
}

// writeStatus writes st when it differs from p's status.
func (r *Reconciler) writeStatus(ctx context.Context, p *policyv1alpha1.FederatedNetworkPolicy, st policyv1alpha1.FederatedNetworkPolicyStatus) error {
	if equality.Semantic.DeepEqual(p.Status, st) {
		return nil
	}
	p.Status = st
	err := r.Status().Update(ctx, p)
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return errRetry
	}
	if err != nil {
		return fmt.Errorf("writing the status: %w", err)
	}
	writes.WithLabelValues("FederatedNetworkPolicyStatus", "update").Inc()
	return nil
}

// cleanUp deletes the derived objects of a deleted federated policy (the
// garbage collector deletes them too, through their owner reference).
func (r *Reconciler) cleanUp(ctx context.Context, key types.NamespacedName) error {
	a := &applier{Client: r.Client, policy: &policyv1alpha1.FederatedNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}}
	selector := client.MatchingLabels{policyv1alpha1.LabelFederatedPolicy: translate.PolicyLabelValue(key.Name)}
	policies := &antreav1beta1.NetworkPolicyList{}
	if err := r.List(ctx, policies, client.InNamespace(key.Namespace), selector); err != nil {
		return fmt.Errorf("listing the derived NetworkPolicies of %s: %w", key, err)
	}
	groups := &antreav1beta1.GroupList{}
	if err := r.List(ctx, groups, client.InNamespace(key.Namespace), selector); err != nil {
		return fmt.Errorf("listing the derived Groups of %s: %w", key, err)
	}
	var objs []client.Object
	for i := range policies.Items {
		objs = append(objs, &policies.Items[i])
	}
	for i := range groups.Items {
		objs = append(objs, &groups.Items[i])
	}
	var errs []error
	for _, o := range objs {
		if a.earlier(o) {
			kind := "Group"
			if _, ok := o.(*antreav1beta1.NetworkPolicy); ok {
				kind = "NetworkPolicy"
			}
			errs = append(errs, a.delete(ctx, kind, o))
		}
	}
	if err := errors.Join(errs...); err != nil && !errors.Is(err, errRetry) {
		return err
	}
	return nil
}
