package chart

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/framework"
)

// The chart (deploy/charts/antreaplus) rendered by the Helm the tool cache
// holds (hack/tools.sh bin helm), for every combination of roles, and each
// rendered object sent to one real API server with a server-side dry run.

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	framework.Main(m, 1, &clusters)
}

// cluster is the one API server of the package.
const cluster = "member-1"

// releaseNamespace is the namespace the chart must be installed in: the
// one the programs and join use.
const releaseNamespace = federationv1alpha1.SystemNamespace

func chartDir() string { return filepath.Join(framework.RepoRoot(), "deploy", "charts", "antreaplus") }

var helmOnce struct {
	sync.Once
	path string
	err  error
}

// helm is the cached Helm binary, built by hack/tools.sh when missing.
func helm(t *testing.T) string {
	t.Helper()
	helmOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 30*time.Minute)
		defer cancel()
		tools, err := toolchain.Ensure(ctx, os.Stderr, "helm")
		helmOnce.path, helmOnce.err = tools.Path("helm"), err
	})
	if helmOnce.err != nil {
		t.Fatalf("helm: %v", helmOnce.err)
	}
	return helmOnce.path
}
