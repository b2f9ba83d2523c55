package objwait_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"antreaplus.io/antreaplus/internal/objwait"
)

// The helper alone, on controller-runtime's fake client (its watch
// delivers every object's events, unfiltered: Until must keep to its
// object); against a real API server it is tested by the trace's
// integration tests (test/integration/policycli).
func TestUntil(t *testing.T) {
	cl := fake.NewClientBuilder().Build()
	ctx := t.Context()
	mk := func(name string) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		if err := cl.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
		return cm
	}
	answered := func(cm *corev1.ConfigMap) bool { return cm.Data["phase"] == "Completed" }
	set := func(name, phase string) {
		cm := &corev1.ConfigMap{}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: "ns", Name: name}, cm); err != nil {
			t.Error(err)
			return
		}
		cm.Data = map[string]string{"phase": phase}
		if err := cl.Update(ctx, cm); err != nil {
			t.Error(err)
		}
	}

	t.Run("answered", func(t *testing.T) {
		cm, _ := mk("answered"), mk("other")
		go func() {
			time.Sleep(50 * time.Millisecond)
			set("other", "Completed") // another object's change does not end the wait
			set("answered", "Running")
			set("answered", "Completed")
		}()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := objwait.Until(wctx, cl, cm, &corev1.ConfigMapList{}, answered); err != nil {
			t.Fatal(err)
		}
		if cm.Name != "answered" || cm.Data["phase"] != "Completed" {
			t.Errorf("object after the wait: %s %v; want answered, Completed", cm.Name, cm.Data)
		}
	})
	t.Run("deleted", func(t *testing.T) {
		cm := mk("deleted")
		go func() {
			time.Sleep(50 * time.Millisecond)
			_ = cl.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "deleted"}})
		}()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := objwait.Until(wctx, cl, cm, &corev1.ConfigMapList{}, answered); !errors.Is(err, objwait.ErrDeleted) {
			t.Errorf("error %v; want ErrDeleted", err)
		}
	})
	t.Run("never answered", func(t *testing.T) {
		cm := mk("silent")
		wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		if err := objwait.Until(wctx, cl, cm, &corev1.ConfigMapList{}, answered); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v; want the deadline", err)
		}
	})
	t.Run("already done", func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "gone"}, Data: map[string]string{"phase": "Completed"}}
		if err := objwait.Until(ctx, cl, cm, &corev1.ConfigMapList{}, answered); err != nil {
			t.Errorf("an object already done: %v", err)
		}
	})
}
