package framework

import (
	"context"
	"testing"

	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Update re-reads obj, applies change and writes it back, again when a
// controller wrote the object in between (409 Conflict): the controllers
// under test write the status of the very objects tests change.
func Update(t testing.TB, c client.Client, obj client.Object, change func()) {
	t.Helper()
	if err := update(c, obj, change, c.Update); err != nil {
		t.Fatalf("updating %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
}

// UpdateStatus is Update for the status subresource.
func UpdateStatus(t testing.TB, c client.Client, obj client.Object, change func()) {
	t.Helper()
	if err := update(c, obj, change, func(ctx context.Context, o client.Object, _ ...client.UpdateOption) error {
		return c.Status().Update(ctx, o)
	}); err != nil {
		t.Fatalf("updating the status of %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
}

func update(c client.Client, obj client.Object, change func(), write func(context.Context, client.Object, ...client.UpdateOption) error) error {
	ctx := context.Background()
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change()
		return write(ctx, obj)
	})
}
