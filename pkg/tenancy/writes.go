package tenancy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

// The writes of an Owner: its claims (acquire, renew, release, contend)
// and its heartbeat, each at the resourceVersion read.

func (w *Owner) acquire(ctx context.Context, tenant string, l *coordinationv1.Lease, now time.Time) error {
	before := w.o.Now()
	var err error
	if l == nil {
		l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: tenancyv1alpha1.ClaimLeaseName(tenant), Namespace: w.o.Namespace}}
		w.fill(l, tenant, now, true)
		err = w.o.Client.Create(ctx, l)
	} else {
		l = l.DeepCopy()
		w.fill(l, tenant, now, true)
		err = w.o.Client.Update(ctx, l)
	}
	w.count("Acquire", err)
	if err != nil {
		return err
	}
	w.mu.Lock()
	delete(w.leaving, tenant)
	w.mu.Unlock()
	w.setRenewed(tenant, before)
	w.o.Log.Info("Claimed tenant", "tenant", tenant, "holder", w.me)
	return nil
}

func (w *Owner) renew(ctx context.Context, tenant string, l *coordinationv1.Lease, now time.Time) error {
	before := w.o.Now()
	l = l.DeepCopy()
	w.fill(l, tenant, now, false)
	err := w.o.Client.Update(ctx, l)
	w.count("Renew", err)
	if err != nil {
		return err
	}
	w.setRenewed(tenant, before)
	return nil
}

// release deletes this replica's claim, if it is still the one read.
func (w *Owner) release(ctx context.Context, tenant string, l *coordinationv1.Lease) error {
	w.forget(tenant)
	err := w.o.Client.Delete(ctx, l, client.Preconditions{UID: &l.UID, ResourceVersion: &l.ResourceVersion})
	if apierrors.IsNotFound(err) {
		err = nil
	}
	w.count("Release", err)
	if err == nil {
		w.o.Log.Info("Released tenant", "tenant", tenant)
	}
	return err
}

// contend leaves the tenant alone and says so: an annotation on the claim
// (refreshed once per lease duration), an event on the Namespace and the
// metric.
func (w *Owner) contend(ctx context.Context, tenant string, l *coordinationv1.Lease, holder string, now time.Time) error {
	key := tenancyv1alpha1.AnnotationContenderPrefix + w.o.Instance
	var err error
	if at, perr := time.Parse(time.RFC3339, l.Annotations[key]); perr != nil || now.Sub(at) >= w.o.LeaseDuration {
		patch := map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: now.UTC().Format(time.RFC3339)}}}
		raw, _ := json.Marshal(patch)
		err = w.o.Client.Patch(ctx, l.DeepCopy(), client.RawPatch(types.MergePatchType, raw))
		w.count("Contend", err)
	}
	w.mu.Lock()
	first := !w.reported[tenant]
	w.reported[tenant] = true
	w.mu.Unlock()
	if first {
		other, _ := SplitHolder(holder)
		msg := fmt.Sprintf("Tenant %s is managed by controller instance %q (%s); instance %q selects it too and leaves it alone. "+
			"Make the --tenant-selector of the two instances disjoint (or label the Namespace %s=<instance>).",
			tenant, other, holder, w.o.Instance, tenancyv1alpha1.LabelController)
		w.o.Log.Info("Tenant held by another controller instance; left alone", "tenant", tenant, "holder", holder)
		if w.o.Recorder != nil {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant}}
			w.o.Recorder.Event(ns, corev1.EventTypeWarning, "TenantClaimedByOtherController", msg)
		}
	}
	return err
}

// fill writes this replica's claim of tenant into l.
func (w *Owner) fill(l *coordinationv1.Lease, tenant string, now time.Time, acquire bool) {
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[tenancyv1alpha1.LabelLease], l.Labels[tenancyv1alpha1.LabelTenant], l.Labels[tenancyv1alpha1.LabelInstance] = tenancyv1alpha1.LeaseClaim, tenant, w.o.Instance
	t := metav1.NewMicroTime(now)
	if acquire {
		if ptr.Deref(l.Spec.HolderIdentity, "") != w.me {
			l.Spec.LeaseTransitions = ptr.To(ptr.Deref(l.Spec.LeaseTransitions, 0) + 1)
		}
		l.Spec.AcquireTime = &t
		// A new holder starts without the previous holder's contenders.
		for k := range l.Annotations {
			if strings.HasPrefix(k, tenancyv1alpha1.AnnotationContenderPrefix) && k != tenancyv1alpha1.AnnotationContenderPrefix+w.o.Instance {
				delete(l.Annotations, k)
			}
		}
		delete(l.Annotations, tenancyv1alpha1.AnnotationContenderPrefix+w.o.Instance)
	}
	l.Spec.HolderIdentity = ptr.To(w.me)
	l.Spec.LeaseDurationSeconds = ptr.To(int32(w.o.LeaseDuration / time.Second))
	l.Spec.RenewTime = &t
}

// heartbeat renews this replica's own Lease, so that the other replicas
// plan with it.
func (w *Owner) heartbeat(ctx context.Context, l *coordinationv1.Lease, now time.Time) error {
	if l != nil && now.Sub(leaseOf(l).Renew) < w.o.RenewPeriod {
		return nil
	}
	t := metav1.NewMicroTime(now)
	spec := coordinationv1.LeaseSpec{HolderIdentity: ptr.To(w.me), RenewTime: &t,
		LeaseDurationSeconds: ptr.To(int32(w.o.LeaseDuration / time.Second))}
	if l == nil {
		l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: ReplicaLeaseName(w.o.Instance, w.o.Replica), Namespace: w.o.Namespace,
			Labels: map[string]string{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseReplica, tenancyv1alpha1.LabelInstance: w.o.Instance}}, Spec: spec}
		spec.AcquireTime = &t
		l.Spec = spec
		err := w.o.Client.Create(ctx, l)
		if apierrors.IsAlreadyExists(err) {
			return nil // read next round
		}
		return err
	}
	l = l.DeepCopy()
	l.Spec.HolderIdentity, l.Spec.RenewTime, l.Spec.LeaseDurationSeconds = spec.HolderIdentity, spec.RenewTime, spec.LeaseDurationSeconds
	return w.o.Client.Update(ctx, l)
}

// releaseAll deletes the claims this replica holds, on the way out.
func (w *Owner) releaseAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w.mu.Lock()
	held := make([]string, 0, len(w.renewed))
	for t := range w.renewed {
		held = append(held, t)
	}
	w.mu.Unlock()
	for _, t := range held {
		l := &coordinationv1.Lease{}
		if err := w.o.Reader.Get(ctx, client.ObjectKey{Namespace: w.o.Namespace, Name: tenancyv1alpha1.ClaimLeaseName(t)}, l); err != nil {
			continue
		}
		if ptr.Deref(l.Spec.HolderIdentity, "") == w.me {
			if err := w.release(ctx, t, l); err != nil {
				w.o.Log.Error(err, "Releasing a claim on the way out failed; it expires", "tenant", t)
			}
		}
	}
	beat := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: w.o.Namespace, Name: ReplicaLeaseName(w.o.Instance, w.o.Replica)}}
	_ = w.o.Client.Delete(ctx, beat)
	w.announce()
}
