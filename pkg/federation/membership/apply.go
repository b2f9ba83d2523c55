package membership

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// namespaceGoneTimeout bounds the wait for a namespace that an earlier
// leave is still deleting.
const namespaceGoneTimeout = 2 * time.Minute

// ensure creates want, or updates the existing object: its labels are
// merged and copy sets the fields the federation owns from want.
func ensure[T client.Object](ctx context.Context, cl client.Client, want T, copyFields func(have, want T)) error {
	have, ok := want.DeepCopyObject().(T)
	if !ok {
		return fmt.Errorf("copying %T", want)
	}
	_, err := controllerutil.CreateOrUpdate(ctx, cl, have, func() error {
		labels := have.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, want.GetLabels())
		have.SetLabels(labels)
		copyFields(have, want)
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing %T %s: %w", want, client.ObjectKeyFromObject(want), err)
	}
	return nil
}

// keepFields is the copy function of objects whose only managed fields are labels.
func keepFields[T client.Object](T, T) {}

// remove deletes obj; an object or a resource type that is not there is fine.
func remove(ctx context.Context, cl client.Client, obj client.Object) (bool, error) {
	err := cl.Delete(ctx, obj)
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		return false, nil
	default:
		return false, fmt.Errorf("deleting %T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
	}
}

// ensureNamespace creates the federation namespace, first waiting until one
// being deleted (by an earlier leave) is gone.
func ensureNamespace(ctx context.Context, cl client.Client, r reporter, cluster string) error {
	ns := &corev1.Namespace{}
	err := cl.Get(ctx, client.ObjectKey{Name: federationv1alpha1.SystemNamespace}, ns)
	if err == nil && ns.DeletionTimestamp != nil {
		r.step(cluster, "waiting for namespace %s, being deleted by an earlier leave, to be gone ...", federationv1alpha1.SystemNamespace)
		if err := waitGone(ctx, cl, ns, namespaceGoneTimeout); err != nil {
			return fmt.Errorf("%s: namespace %s is still being deleted after %s: check what blocks it with 'kubectl --context %s get namespace %s -o yaml'",
				cluster, federationv1alpha1.SystemNamespace, namespaceGoneTimeout, cluster, federationv1alpha1.SystemNamespace)
		}
	} else if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("%s: reading namespace %s: %w", cluster, federationv1alpha1.SystemNamespace, err)
	}
	return ensure(ctx, cl, namespaceObject(), keepFields)
}

// waitGone polls until obj no longer exists.
func waitGone(ctx context.Context, cl client.Client, obj client.Object, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		err := cl.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, nil // other errors: retried until the timeout
	})
}
