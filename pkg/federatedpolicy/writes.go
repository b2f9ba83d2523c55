package federatedpolicy

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// rejectedError is the API server's refusal of a derived object as
// invalid: writing it again would fail again.
type rejectedError struct {
	kind, name string
	err        error
}

func (e *rejectedError) Error() string {
	return fmt.Sprintf("the API server rejects the derived %s %s: %v", e.kind, e.name, e.err)
}

func (e *rejectedError) Unwrap() error { return e.err }

func (a *applier) create(ctx context.Context, kind string, obj client.Object) error {
	return a.done(ctx, kind, "create", obj, a.Create(ctx, obj))
}

func (a *applier) update(ctx context.Context, kind string, obj client.Object) error {
	return a.done(ctx, kind, "update", obj, a.Update(ctx, obj))
}

func (a *applier) delete(ctx context.Context, kind string, obj client.Object) error {
	err := a.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return a.done(ctx, kind, "delete", obj, err)
}

// done counts a write and classifies its error.
func (a *applier) done(ctx context.Context, kind, verb string, obj client.Object, err error) error {
	name := obj.GetNamespace() + "/" + obj.GetName()
	switch {
	case err == nil:
		writes.WithLabelValues(kind, verb).Inc()
		a.wrote++
		log.FromContext(ctx).V(1).Info("Wrote a derived object", "kind", kind, "verb", verb, "name", name)
		return nil
	case apierrors.IsAlreadyExists(err), apierrors.IsConflict(err), apierrors.IsNotFound(err):
		return errRetry
	case apierrors.IsInvalid(err):
		return &rejectedError{kind: kind, name: name, err: err}
	}
	return fmt.Errorf("%s %s %s: %w", verb, kind, name, err)
}
