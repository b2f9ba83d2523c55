package outage

import (
	"context"

	"k8s.io/client-go/rest"
)

// Readyz probes an API server's /readyz through c (e.g. a clientset's
// Discovery().RESTClient()).
func Readyz(c rest.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		return c.Get().AbsPath("/readyz").Do(ctx).Error()
	}
}
