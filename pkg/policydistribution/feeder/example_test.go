package feeder_test

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/feeder"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// The feeder in a manager whose cache has controlplane.CacheOptions: it
// compiles what the informers hold and publishes to the hub; it also
// answers, for the status writer, how each policy compiled.
func ExampleNew() {
	setup := func(mgr ctrl.Manager, hub *policydistribution.Hub) error {
		f := feeder.New(feeder.Options{Cache: mgr.GetCache(), Hub: hub, Log: mgr.GetLogger().WithName("feeder")})
		if err := mgr.Add(f); err != nil { // a manager.Runnable
			return err
		}
		st, generation, ok := f.PolicyStatus(policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: "db"})
		fmt.Println(st.Realized, generation, ok)
		return nil
	}
	_ = setup
}
