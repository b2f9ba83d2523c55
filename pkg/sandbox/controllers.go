package sandbox

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// controllersTimeout bounds the wait for a cluster's kube-controller-manager
// to run its controllers. On an idle machine it takes a few seconds after the
// API server answers; on two cores shared with a test suite's other clusters
// it was seen to take over a minute.
const controllersTimeout = 4 * time.Minute

// waitControllers returns once the cluster's kube-controller-manager runs
// its controllers: the ServiceAccount "default" of Namespace "default"
// exists. The serviceaccount controller writes it, and the controller
// manager starts the token controller (which fills the federation
// account's token Secret when a member joins) before every other
// controller, so joining right after this does not wait on a controller
// manager that is still starting.
//
// heal runs before every look: it starts again what exited meanwhile.
func waitControllers(ctx context.Context, cfg *rest.Config, timeout time.Duration, heal func(context.Context, kubernetes.Interface) error) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if err := heal(ctx, cs); err != nil {
			return false, err
		}
		_, last = cs.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(last) {
			last = nil
			return false, nil
		}
		return last == nil, nil
	})
	if err == nil {
		return nil
	}
	if last != nil {
		err = fmt.Errorf("%w; last error: %w", err, last)
	}
	return fmt.Errorf("kube-controller-manager wrote no ServiceAccount default/default within %s (%w)", timeout, err)
}
