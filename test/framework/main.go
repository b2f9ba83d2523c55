package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

type clientcmdConfig = clientcmdapi.Config

var errNoTools = errors.New("the cluster tools are not built")

// Main starts n clusters, stores them in *clusters, runs the package's tests
// and stops the clusters, whatever the tests did. When the tools are missing
// it skips the package, unless ANTREAPLUS_REQUIRE_CLUSTERS=1 makes that a failure.
func Main(m *testing.M, n int, clusters **Clusters) { MainWith(m, n, clusters, Options{}) }

// MainWith is Main with clusters shaped by opts.
func MainWith(m *testing.M, n int, clusters **Clusters, opts Options) {
	code := run(m, n, clusters, opts)
	removeBuilt()
	os.Exit(code)
}

// MainWithoutClusters runs a package's tests that start their own
// sandboxes, and removes the programs Binary built for them.
func MainWithoutClusters(m *testing.M) {
	code := m.Run()
	removeBuilt()
	os.Exit(code)
}

// RemoveBuilt deletes the programs Binary built in this process: a package
// whose TestMain does not end in Main or MainWithoutClusters calls it
// before it exits.
func RemoveBuilt() { removeBuilt() }

func run(m *testing.M, n int, clusters **Clusters, opts Options) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	started := time.Now()
	c, err := StartWith(ctx, n, opts)
	cancel()
	if errors.Is(err, errNoTools) && os.Getenv(RequireEnv) != "1" {
		fmt.Fprintf(os.Stderr, "SKIP: %v\n", err)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting %d clusters: %v\n", n, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "framework: %d clusters ready in %s\n", n, time.Since(started).Round(100*time.Millisecond))
	*clusters = c

	// Stop the clusters on Ctrl-C or SIGTERM too.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sig; ok {
			_ = c.Stop()
			os.Exit(1)
		}
	}()
	defer func() {
		signal.Stop(sig)
		close(sig)
		if err := c.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping clusters: %v\n", err)
		}
	}()
	return m.Run()
}
