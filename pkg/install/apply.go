package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/client-go/rest"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Options say what Install and Upgrade apply.
type Options struct {
	// Roles are the cluster's roles (ParseRoles); none: the values decide
	// (Install: the chart's default, a member; Upgrade: the recorded roles).
	Roles []Role
	// ValuesFiles are merged in order (later ones win), as helm --values.
	ValuesFiles []ValuesFile
	// Values are merged last, over the files.
	Values map[string]any
	// Wait waits until every Deployment is available.
	Wait bool
	// Timeout bounds the waits: DefaultTimeout when zero.
	Timeout time.Duration
	// Progress gets a line per object: "  created|configured|unchanged|pruned
	// Kind namespace/name"; nil: none.
	Progress io.Writer
}

// Result is what Install or Upgrade did.
type Result struct {
	// Rendering is what was applied.
	Rendering *Rendering
	// Release is the record written: roles, values and revision.
	Release *Release
	// The objects created, changed, left as they were and pruned (the
	// namespace and the CRDs included, the release record not).
	Created, Configured, Unchanged, Pruned int
	// Duration is the time the whole call took.
	Duration time.Duration
}

// ErrInstalled is wrapped by Install's error when the cluster already has
// a release.
var ErrInstalled = errors.New("AntreaPlus is already installed")

// Install renders the chart for the options and applies it to a cluster
// without a release: the namespace antreaplus-system, the CRDs (with
// server-side apply, then waiting until they are served), then every object
// in Helm's install order. It prunes objects labelled as the release's that
// the rendering lacks, records the release in the ConfigMap
// antreaplus-system/antreaplus-release, and with Wait waits for the
// Deployments. Values the chart refuses fail it before anything is written.
func Install(ctx context.Context, cfg *rest.Config, opts Options) (*Result, error) {
	return run(ctx, cfg, opts, false)
}

// Upgrade is Install for a cluster with a release: the recorded roles and
// values are kept unless new ones are given, and objects of the roles
// dropped are pruned.
func Upgrade(ctx context.Context, cfg *rest.Config, opts Options) (*Result, error) {
	return run(ctx, cfg, opts, true)
}

func run(ctx context.Context, cfg *rest.Config, opts Options, upgrade bool) (*Result, error) {
	start := time.Now()
	c, err := connect(cfg)
	if err != nil {
		return nil, err
	}
	recorded, err := c.release(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkRelease(recorded, upgrade); err != nil {
		return nil, err
	}
	pl, r, err := prepare(opts, recorded, c.version, start)
	if err != nil {
		return nil, err
	}
	kinds, err := chartKinds(c.version)
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	p := newProgress(opts.Progress)
	if err := c.ensureNamespace(ctx, timeout, p); err != nil {
		return nil, err
	}
	if err := c.applyCRDs(ctx, r.CRDs, p); err != nil {
		return nil, err
	}
	if err := c.applyAll(ctx, r.Objects, p); err != nil {
		return nil, err
	}
	if err := c.prune(ctx, appendKinds(kinds, r.Objects), r, p); err != nil {
		return nil, err
	}
	if err := c.record(ctx, pl.release); err != nil {
		return nil, err
	}
	if opts.Wait {
		if err := c.waitRollouts(ctx, r.Objects, timeout, p); err != nil {
			return nil, err
		}
	}
	return &Result{
		Rendering: r, Release: pl.release,
		Created: p.created, Configured: p.configured, Unchanged: p.unchanged, Pruned: p.pruned,
		Duration: time.Since(start),
	}, nil
}

// checkRelease refuses an install over a release and an upgrade of none.
func checkRelease(recorded *Release, upgrade bool) error {
	switch {
	case !upgrade && recorded != nil:
		return fmt.Errorf("%w in this cluster (revision %d, roles %s, chart %s, at %s): change it with 'antreaplus upgrade', or remove it with 'antreaplus uninstall' first",
			ErrInstalled, recorded.Revision, RoleList(recorded.Roles), recorded.ChartVersion, recorded.Time.Format(time.RFC3339))
	case upgrade && recorded == nil:
		return fmt.Errorf("AntreaPlus is not installed in this cluster (no ConfigMap %s/%s records a release): install it with 'antreaplus install'",
			federationv1alpha1.SystemNamespace, ReleaseConfigMap)
	}
	return nil
}

// prepare plans the release and renders it for a cluster of kubeVersion.
func prepare(opts Options, recorded *Release, kubeVersion string, now time.Time) (*plan, *Rendering, error) {
	defaults, err := chartDefaults()
	if err != nil {
		return nil, nil, err
	}
	pl, err := planRelease(opts, recorded, defaults, now)
	if err != nil {
		return nil, nil, err
	}
	r, err := Render(RenderOptions{Values: pl.values, Upgrade: recorded != nil, KubeVersion: kubeVersion})
	if err != nil {
		return nil, nil, err
	}
	pl.release.ChartVersion, pl.release.AppVersion = r.ChartVersion, r.AppVersion
	return pl, r, nil
}
