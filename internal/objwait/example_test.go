package objwait_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"antreaplus.io/antreaplus/internal/objwait"
)

// A command created an object and waits until a controller answers in it
// (here a ConfigMap's data stands for a status, and a goroutine for the
// controller).
func ExampleUntil() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl := fake.NewClientBuilder().Build()
	asked := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "question"}}
	if err := cl.Create(ctx, asked); err != nil {
		panic(err)
	}
	go func() { // the controller
		answer := &corev1.ConfigMap{}
		_ = cl.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "question"}, answer)
		answer.Data = map[string]string{"phase": "Completed"}
		_ = cl.Update(ctx, answer)
	}()
	err := objwait.Until(ctx, cl, asked, &corev1.ConfigMapList{}, func(cm *corev1.ConfigMap) bool {
		return cm.Data["phase"] == "Completed"
	})
	fmt.Println(err, asked.Data["phase"])
	// Output: <nil> Completed
}
