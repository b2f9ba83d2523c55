package agentless_test

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/agentless"
	"antreaplus.io/antreaplus/pkg/policydistribution/consumer"
)

// The syncer in the cloud controller's manager: it watches the policy
// controller's agentless scope, with the agentless consumer's token, and
// syncs the security groups of every VPC through the accounts' providers.
// cmd/cloud-controller does this through cloudcontroller.Options.Agentless.
func ExampleNew() {
	setup := func(mgr ctrl.Manager, providers *accountprovider.Set) error {
		c, err := consumer.New(consumer.Options{Server: "https://policy-controller.antreaplus-system.svc:8443",
			TokenFile: "/var/run/antreaplus/agentless/token", CAFile: "/var/run/antreaplus/agentless/ca.crt",
			Log: ctrl.Log.WithName("agentless")})
		if err != nil {
			return err
		}
		m := agentless.NewMetrics()
		if err := agentless.RegisterMetrics(metrics.Registry, m); err != nil {
			return err
		}
		s := agentless.New(agentless.Options{Consumer: c, Reader: mgr.GetClient(), Providers: providers,
			Prefix: "antreaplus-", Interval: time.Minute, Metrics: m, Log: ctrl.Log.WithName("agentless")})
		return mgr.Add(s) // runs while this replica is the leader
	}
	_ = setup
}
