// Package crdinstall applies CustomResourceDefinitions to a cluster and waits
// until the API server serves them.
package crdinstall

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"antreaplus.io/antreaplus/config/crd"
	"antreaplus.io/antreaplus/internal/subset"
)

// InstallAll installs the project's CRDs and the Multi-Cluster Services CRDs.
func InstallAll(ctx context.Context, cfg *rest.Config) error {
	crds, err := crd.All()
	if err != nil {
		return err
	}
	return Install(ctx, cfg, crds)
}

// Install creates or updates each CRD, then waits until all are Established.
func Install(ctx context.Context, cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) error {
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	api := cs.ApiextensionsV1().CustomResourceDefinitions()
	for _, want := range crds {
		have, err := api.Get(ctx, want.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			if _, err := api.Create(ctx, want.DeepCopy(), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating CRD %s: %w", want.Name, err)
			}
		case err != nil:
			return fmt.Errorf("reading CRD %s: %w", want.Name, err)
		case holds(have, want):
			// Written from this manifest already: an API server validates a
			// CRD's whole schema and compiles its CEL rules on every write,
			// and under a loaded CI machine writing the project's CRDs again
			// took a minute.
		default:
			update := want.DeepCopy()
			update.ResourceVersion = have.ResourceVersion
			if _, err := api.Update(ctx, update, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("updating CRD %s: %w", want.Name, err)
			}
		}
	}
	for _, want := range crds {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			have, err := api.Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil {
				return false, nil //nolint:nilerr // retried until the timeout
			}
			return established(have), nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s was not established within 30s: %w", want.Name, err)
		}
	}
	return nil
}

// holds says whether the stored CRD has every field of the manifest's spec,
// labels and annotations.
func holds(have, want *apiextensionsv1.CustomResourceDefinition) bool {
	h, err := runtime.DefaultUnstructuredConverter.ToUnstructured(have)
	if err != nil {
		return false
	}
	w, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	if err != nil {
		return false
	}
	meta := func(o map[string]any) map[string]any {
		m, _ := o["metadata"].(map[string]any)
		out := map[string]any{}
		for _, k := range []string{"labels", "annotations"} {
			if v, ok := m[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	return subset.Of(w["spec"], h["spec"]) && subset.Of(meta(w), meta(h))
}

func established(c *apiextensionsv1.CustomResourceDefinition) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
