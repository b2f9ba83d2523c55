package agenttoken

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"antreaplus.io/antreaplus/pkg/policydistribution"
)

// FeedTokens keeps tokens current with the token Secrets of the cache's
// Secret informer (which should select policyv1alpha1.LabelDistributionToken
// only). It returns once the handler is registered; the informer feeds it
// until the cache stops.
func FeedTokens(ctx context.Context, c cache.Cache, tokens *policydistribution.Tokens) error {
	inf, err := c.GetInformer(ctx, &corev1.Secret{}, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("getting the Secret informer: %w", err)
	}
	set := func(obj any) {
		if s, ok := obj.(*corev1.Secret); ok {
			tokens.SetSecret(s)
		}
	}
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    set,
		UpdateFunc: func(_, obj any) { set(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if s, ok := obj.(*corev1.Secret); ok {
				tokens.DeleteSecret(types.NamespacedName{Namespace: s.Namespace, Name: s.Name})
			}
		},
	})
	if err != nil {
		return fmt.Errorf("watching token Secrets: %w", err)
	}
	return nil
}
