package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// UninstallOptions say what Uninstall removes.
type UninstallOptions struct {
	// CRDs deletes the chart's CRDs too (not Antrea's own), and with them
	// every object of their kinds in the cluster.
	CRDs bool
	// Force uninstalls from a cluster that is still in a federation.
	Force bool
	// Timeout bounds the wait until everything is gone: DefaultTimeout
	// when zero.
	Timeout time.Duration
	// Progress gets a line per object deleted; nil: none.
	Progress io.Writer
}

// UninstallResult is what Uninstall did.
type UninstallResult struct {
	// Deleted counts the objects deleted.
	Deleted int
	// Left names ("Kind namespace/name") what was still there at the end:
	// nothing, unless something held an object past the timeout.
	Left []string
	// Duration is the time the whole call took.
	Duration time.Duration
}

// ErrInFederation is wrapped by Uninstall's error when the cluster still
// has a ClusterMembership and Force is not set.
var ErrInFederation = errors.New("the cluster is still in a federation")

// Uninstall deletes what the release made: every object of the chart's
// kinds labelled as the release's (in reverse install order), the release
// record, the namespace antreaplus-system (and so whatever else it holds),
// and with CRDs the chart's CRDs. It waits until they are gone, then lists
// what is left, which is an error. It refuses a cluster that is in a
// federation (a ClusterMembership exists) unless Force: leave first.
func Uninstall(ctx context.Context, cfg *rest.Config, opts UninstallOptions) (*UninstallResult, error) {
	start := time.Now()
	c, err := connect(cfg)
	if err != nil {
		return nil, err
	}
	if err := c.checkNotFederated(ctx, opts.Force); err != nil {
		return nil, err
	}
	kinds, err := chartKinds(c.version)
	if err != nil {
		return nil, err
	}
	slices.Reverse(kinds)
	var crds []*unstructured.Unstructured
	if opts.CRDs {
		r, err := Render(RenderOptions{KubeVersion: c.version})
		if err != nil {
			return nil, err
		}
		crds = r.CRDs
	}
	targets, err := c.uninstallTargets(ctx, kinds, crds)
	if err != nil {
		return nil, err
	}
	p := newProgress(opts.Progress)
	for _, o := range targets {
		removed, err := c.remove(ctx, o)
		if err != nil {
			return nil, err
		}
		if removed {
			p.deleted++
			p.note("deleted", o)
		}
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	left, err := c.waitUninstalled(ctx, kinds, crds, timeout)
	res := &UninstallResult{Deleted: p.deleted, Left: left, Duration: time.Since(start)}
	if err != nil {
		return res, fmt.Errorf("%d object(s) still present %s after deletion: %v; see what holds them (metadata.finalizers, a namespace's status.conditions) with 'kubectl get <kind> <name> -o yaml', then run uninstall again",
			len(left), timeout, left)
	}
	return res, nil
}

// waitUninstalled waits until none of the release's objects is left, and
// returns those left when timeout passes first. It nudges the CRDs whose
// deletion is stuck.
func (c *cluster) waitUninstalled(ctx context.Context, kinds []schema.GroupVersionKind, crds []*unstructured.Unstructured, timeout time.Duration) ([]string, error) {
	var left []string
	nudged := map[string]time.Time{}
	err := wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		targets, err := c.uninstallTargets(ctx, kinds, crds)
		if err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		left = refs(targets)
		for _, o := range targets {
			if now := time.Now(); stuckDeleting(o) && now.Sub(nudged[o.GetName()]) >= time.Second {
				nudged[o.GetName()] = now
				c.nudge(ctx, o, now)
			}
		}
		return len(left) == 0, nil
	})
	return left, err
}

// checkNotFederated refuses a cluster that has a ClusterMembership, unless
// force: the federation's supervisors would keep it in their registries and
// find its account gone.
func (c *cluster) checkNotFederated(ctx context.Context, force bool) error {
	m := &unstructured.Unstructured{}
	m.SetGroupVersionKind(federationv1alpha1.GroupVersion.WithKind("ClusterMembership"))
	m.SetName(federationv1alpha1.MembershipName)
	have, err := c.get(ctx, m)
	if err != nil || have == nil || force {
		return err
	}
	federation, _, _ := unstructured.NestedString(have.Object, "spec", "federationID")
	clusterID, _, _ := unstructured.NestedString(have.Object, "spec", "clusterID")
	return fmt.Errorf("%w: it is cluster %s of federation %s (ClusterMembership %s): run 'antreaplus federation leave --context CONTEXT' first, "+
		"or uninstall with --force, which leaves its supervisors registering a member they can no longer reach",
		ErrInFederation, clusterID, federation, federationv1alpha1.MembershipName)
}

// uninstallTargets are the objects of the release present in the cluster,
// in the order they are deleted: the objects of kinds (in that order)
// labelled as the release's, its record, the namespace, then those of
// crds that are not Antrea's.
func (c *cluster) uninstallTargets(ctx context.Context, kinds []schema.GroupVersionKind, crds []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, gvk := range kinds {
		live, err := c.list(ctx, gvk, releaseSelector)
		if err != nil {
			return nil, err
		}
		for i := range live {
			if keyOf(&live[i]) != keyOf(releaseObject()) {
				out = append(out, &live[i])
			}
		}
	}
	candidates := append([]*unstructured.Unstructured{releaseObject(), namespaceObject()}, crds...)
	for _, o := range candidates {
		have, err := c.get(ctx, o)
		if err != nil {
			return nil, err
		}
		if have != nil && !antreasOwn(have) {
			out = append(out, have)
		}
	}
	return out, nil
}

func refs(objs []*unstructured.Unstructured) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = ref(o)
	}
	return out
}
