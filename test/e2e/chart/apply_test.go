package chart

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// fieldManager is the server-side apply manager of the test's writes.
const fieldManager = "antreaplus-chart-test"

// applier server-side applies objects to the package's API server.
type applier struct {
	dyn    dynamic.Interface
	mapper meta.RESTMapper
}

func newApplier(t *testing.T) *applier {
	t.Helper()
	cfg := clusters.Config(t, cluster)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

// apply server-side applies o, only as a dry run when dryRun is set.
func (a *applier) apply(ctx context.Context, o *unstructured.Unstructured, dryRun bool) error {
	m, err := a.mapper.RESTMapping(o.GroupVersionKind().GroupKind(), o.GroupVersionKind().Version)
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
	}
	var ri dynamic.ResourceInterface = a.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = a.dyn.Resource(m.Resource).Namespace(o.GetNamespace())
	}
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if _, err := ri.Apply(ctx, o.GetName(), o, opts); err != nil {
		return fmt.Errorf("%s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

var installed struct {
	sync.Once
	err error
}

// installCRDs applies the chart's CRDs for real (the sandbox has them
// already: this checks that the chart's are accepted and that they are the
// same kinds), and creates the release's namespace.
func installCRDs(t *testing.T, crds []*unstructured.Unstructured) {
	t.Helper()
	installed.Do(func() {
		ctx := context.WithoutCancel(t.Context())
		a := newApplier(t)
		for _, crd := range crds {
			if installed.err = a.apply(ctx, crd, false); installed.err != nil {
				return
			}
		}
		cl := clusters.Client(t, cluster)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: releaseNamespace}}
		if err := cl.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			installed.err = err
		}
	})
	if installed.err != nil {
		t.Fatalf("installing the chart's CRDs: %v", installed.err)
	}
}
