package apiwrites

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestCountsWritesNotReads(t *testing.T) {
	counter := NewCounter()
	cl := counter.Wrap(fake.NewClientBuilder().WithScheme(scheme.Scheme).WithStatusSubresource(&corev1.Namespace{}).Build())
	ctx := t.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	if err := cl.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	_ = cl.Get(ctx, client.ObjectKeyFromObject(ns), ns)
	_ = cl.List(ctx, &corev1.NamespaceList{})
	ns.Labels = map[string]string{"x": "y"}
	_ = cl.Update(ctx, ns)
	_ = cl.Status().Update(ctx, ns)
	_ = cl.Delete(ctx, ns)
	want := map[Key]int64{{"create", "Namespace"}: 1, {"update", "Namespace"}: 1, {"update/status", "Namespace"}: 1, {"delete", "Namespace"}: 1}
	got := counter.Counts()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%v = %d; want %d (all: %v)", k, got[k], v, got)
		}
	}
	if counter.Total() != 4 {
		t.Errorf("total = %d; want 4", counter.Total())
	}
}
