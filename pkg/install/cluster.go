package install

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// requestTimeout bounds each request when the configuration sets none, so
// that an unreachable cluster fails the command instead of hanging it.
const requestTimeout = 30 * time.Second

// cluster is one cluster as install, upgrade and uninstall talk to it: any
// object through the dynamic client, its resource found by discovery.
type cluster struct {
	dyn     dynamic.Interface
	mapper  meta.ResettableRESTMapper
	version string // the API server's GitVersion, e.g. "v1.34.4"
}

// connect reads the cluster's version and prepares its clients.
func connect(cfg *rest.Config) (*cluster, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 {
		cfg.Timeout = requestTimeout
	}
	// client-go's default (5 per second) would make an install of some
	// sixty objects, each read then applied, take half a minute.
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("a client of %s: %w", cfg.Host, err)
	}
	v, err := disc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("reading the version of the API server %s: %w; check that the context reaches the cluster (kubectl version)", cfg.Host, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("a client of %s: %w", cfg.Host, err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	return &cluster{dyn: dyn, mapper: mapper, version: v.GitVersion}, nil
}

// resource is the client of gvk's resource in namespace (cluster-wide when
// empty or when the kind is cluster-scoped).
func (c *cluster) resource(gvk schema.GroupVersionKind, namespace string) (dynamic.ResourceInterface, error) {
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameRoot || namespace == "" {
		return c.dyn.Resource(m.Resource), nil
	}
	return c.dyn.Resource(m.Resource).Namespace(namespace), nil
}

// outcome is what applying an object did.
type outcome string

const (
	created    outcome = "created"
	configured outcome = "configured"
	unchanged  outcome = "unchanged"
)

// apply applies o with server-side apply as the field manager ManagedBy,
// taking over fields another manager set (an earlier tool, kubectl, the
// sandbox), and says whether it created, changed or left the object.
func (c *cluster) apply(ctx context.Context, o *unstructured.Unstructured) (outcome, error) {
	ri, err := c.resource(o.GroupVersionKind(), o.GetNamespace())
	if err != nil {
		return "", fmt.Errorf("%s: the cluster does not serve it (%w): is the cluster older than the chart needs?", ref(o), err)
	}
	before, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		before, err = nil, nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w; %s", ref(o), err, advice(err))
	}
	out, _, err := c.applyOver(ctx, ri, o, before)
	return out, err
}

// applyOver applies o, which was before (nil: absent), and returns the
// outcome and the object the API server stored.
func (c *cluster) applyOver(ctx context.Context, ri dynamic.ResourceInterface, o, before *unstructured.Unstructured) (outcome, *unstructured.Unstructured, error) {
	after, err := ri.Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: ManagedBy, Force: true})
	if err != nil {
		return "", nil, fmt.Errorf("applying %s: %w; %s", ref(o), err, advice(err))
	}
	switch {
	case before == nil:
		return created, after, nil
	case before.GetResourceVersion() == after.GetResourceVersion():
		return unchanged, after, nil
	default:
		return configured, after, nil
	}
}

// applyAll applies objects in their order, kind after kind (Helm's install
// order: a RoleBinding after its Role, a Deployment after its
// ServiceAccount), the objects of one kind concurrently, and reports each
// outcome in order.
func (c *cluster) applyAll(ctx context.Context, objects []*unstructured.Unstructured, p *progress) error {
	for start := 0; start < len(objects); {
		end := start + 1
		for end < len(objects) && objects[end].GroupVersionKind() == objects[start].GroupVersionKind() {
			end++
		}
		group := objects[start:end]
		outs := make([]outcome, len(group))
		errs := make([]error, len(group))
		sem := make(chan struct{}, applyConcurrency)
		var wg sync.WaitGroup
		for i, o := range group {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				outs[i], errs[i] = c.apply(ctx, o)
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		for i, o := range group {
			p.applied(outs[i], o)
		}
		start = end
	}
	return nil
}

// applyConcurrency bounds the requests in flight while applying one kind.
const applyConcurrency = 8

// get reads an object like o; nil when it does not exist (or its kind is
// not served).
func (c *cluster) get(ctx context.Context, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, err := c.resource(o.GroupVersionKind(), o.GetNamespace())
	if meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	have, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w; %s", ref(o), err, advice(err))
	}
	return have, nil
}

// remove deletes an object like o in the background (its dependents, a
// Deployment's ReplicaSets and Pods, after it); false when it was not there.
func (c *cluster) remove(ctx context.Context, o *unstructured.Unstructured) (bool, error) {
	ri, err := c.resource(o.GroupVersionKind(), o.GetNamespace())
	if meta.IsNoMatchError(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	background := metav1.DeletePropagationBackground
	err = ri.Delete(ctx, o.GetName(), metav1.DeleteOptions{PropagationPolicy: &background})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	default:
		return false, fmt.Errorf("deleting %s: %w; %s", ref(o), err, advice(err))
	}
}

// list returns the objects of gvk, in every namespace, that selector
// selects; none when the cluster does not serve the kind.
func (c *cluster) list(ctx context.Context, gvk schema.GroupVersionKind, selector string) ([]unstructured.Unstructured, error) {
	ri, err := c.resource(gvk, "")
	if meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l, err := ri.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("listing the %ss labelled %s: %w; %s", gvk.Kind, selector, err, advice(err))
	}
	for i := range l.Items {
		l.Items[i].SetGroupVersionKind(gvk)
	}
	return l.Items, nil
}

// ref is how messages and progress name an object: "Kind namespace/name",
// or "Kind name" when it is cluster-scoped.
func ref(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + " " + o.GetName()
	}
	return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
}

// advice says what to do about a failed request.
func advice(err error) string {
	switch {
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		return "the context's user may not do it: install with a context that has cluster-admin rights"
	case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		return "the API server refuses the object the chart rendered: check the values given (--values) against the chart's values.yaml"
	case apierrors.IsConflict(err):
		return "another client changed it meanwhile: run the command again"
	default:
		return "check that the cluster is reachable and run the command again"
	}
}
