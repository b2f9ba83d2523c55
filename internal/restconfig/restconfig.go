// Package restconfig loads the client configuration the project's
// controllers run with: a kubeconfig file and context when given (as the
// sandbox runs them), else the in-cluster configuration.
package restconfig

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Load returns the configuration of kubeconfig's context, or controller-runtime's
// default (in-cluster, $KUBECONFIG, ~/.kube/config) when both are empty.
func Load(kubeconfig, context string) (*rest.Config, error) {
	if kubeconfig == "" && context == "" {
		return ctrl.GetConfig()
	}
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s (context %q): %w", kubeconfig, context, err)
	}
	return cfg, nil
}
