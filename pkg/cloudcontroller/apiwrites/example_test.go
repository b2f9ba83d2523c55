package apiwrites_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/apiwrites"
)

// The writes of a client counted by verb and kind, reads not: the cloud
// controller's manager gets its clients from counter.NewClient
// (ctrl.Options.NewClient), and RegisterMetrics serves the counts as
// antreaplus_cloud_controller_api_writes_total.
func ExampleCounter() {
	sch, err := scheme.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	counter := apiwrites.NewCounter()
	c := counter.Wrap(fake.NewClientBuilder().WithScheme(sch).Build())
	ctx := context.Background()

	vm := &cloudv1alpha1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "i-0a"}}
	before := counter.Total()
	_ = c.Create(ctx, vm)
	_ = c.Get(ctx, client.ObjectKeyFromObject(vm), vm) // a read: not counted
	vm.Status.ObservedGeneration = 1
	_ = c.Status().Update(ctx, vm)
	_ = c.Delete(ctx, vm)
	fmt.Println("writes:", counter.Total()-before)
	for k, n := range counter.Counts() {
		if k.Verb == "update/status" {
			fmt.Println(k.Verb, k.Kind, n)
		}
	}
	// Output:
	// writes: 3
	// update/status VirtualMachine 1
}
