package agenttoken_test

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/agenttoken"
)

// The token Secrets of agented VMs kept by the reconciler, fed from the
// manager's cache into the server's Authenticator, and the agentless
// consumer's token created once.
func ExampleReconciler() {
	setup := func(ctx context.Context, mgr ctrl.Manager) (*policydistribution.Tokens, error) {
		r := &agenttoken.Reconciler{Client: mgr.GetClient(), AgentlessNode: "antreaplus-cloud-controller"}
		if err := r.SetupWithManager(mgr); err != nil {
			return nil, err
		}
		tokens := policydistribution.NewTokens("antreaplus-system")
		if err := agenttoken.FeedTokens(ctx, mgr.GetCache(), tokens); err != nil { // Secrets -> Tokens
			return nil, err
		}
		err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
			return agenttoken.EnsureAgentless(ctx, mgr.GetClient(), "antreaplus-system")
		}))
		return tokens, err
	}
	_ = setup
}

// The Secret whose "token" key a VM's agent is installed with.
func ExampleSecretName() {
	fmt.Println(agenttoken.SecretName("web-1"))
	// Output:
	// vm-agent-token-web-1
}
