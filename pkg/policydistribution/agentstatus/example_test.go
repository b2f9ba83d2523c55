package agentstatus_test

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/agentstatus"
)

// The reconciler reads what agents reported from the distribution server
// and is told, through the server's OnAgentChange, when one did.
func ExampleReconciler() {
	setup := func(mgr ctrl.Manager, hub *policydistribution.Hub, tokens *policydistribution.Tokens) error {
		status := &agentstatus.Reconciler{Client: mgr.GetClient(), Started: time.Now()}
		server := policydistribution.NewServer(hub, policydistribution.ServerOptions{Authenticator: tokens,
			OnAgentChange: func(vm types.NamespacedName) { status.Changed(vm) }})
		status.Agents = server
		return status.SetupWithManager(mgr)
	}
	_ = setup
}
