// Command demo is `make demo`: it starts a federated sandbox of three real
// clusters with a local cloud, and shows, section by section, what
// AntreaPlus does: the federation and its failover, a federated Service
// resolved by DNS inside and outside the members, policies enforced in
// security groups and by VM agents, federated policies across members and
// overlapping networks, and tenancy. Every section checks what it shows
// (the tests' waits, test/framework.Poll): a demo that no longer does what
// it says fails, naming the section.
//
// With -fast it runs the sections that need no cloud on a lighter sandbox;
// `make test` runs that form (hack/demo's TestDemoFast) so that the demo
// cannot rot.
//
// The objects it applies are test/e2e/testdata/demo/*.yaml, which the e2e
// tests apply too.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "bin", "directory of the built programs (make build build-dev)")
	flag.StringVar(&o.kubectl, "kubectl", "", "the kubectl program (default: the tools cache's)")
	flag.StringVar(&o.dir, "dir", "", "sandbox directory (default: the sandbox's default, $ANTREAPLUS_SANDBOX_DIR)")
	flag.IntVar(&o.apiPortBase, "api-port-base", 0, "API server port of member-1 (default: the sandbox's)")
	flag.BoolVar(&o.fast, "fast", false, "the sections that need no cloud, on a lighter sandbox (what make test runs)")
	flag.BoolVar(&o.asInstalled, "as-installed", os.Getenv("DEMO_AS_INSTALLED") == "1", "run every component as its Pod, the chart installed (root; also DEMO_AS_INSTALLED=1)")
	flag.IntVar(&o.clusters, "clusters", envInt("DEMO_CLUSTERS", 3), "clusters (also DEMO_CLUSTERS)")
	flag.IntVar(&o.supervisors, "supervisors", envInt("DEMO_SUPERVISORS", 2), "supervisors (also DEMO_SUPERVISORS)")
	flag.Parse()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "\ndemo: %v\n", err)
		os.Exit(1)
	}
}

// options are the demo's flags.
type options struct {
	bin, kubectl, dir     string
	apiPortBase           int
	fast, asInstalled     bool
	clusters, supervisors int
}

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err == nil && n > 0 {
		return n
	}
	return def
}

// run starts (or completes) the sandbox and shows every section in order;
// the first section whose check fails ends it with an error naming it.
func run(ctx context.Context, o options, out io.Writer) error {
	d, err := newDemo(ctx, o, out)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := d.up(); err != nil {
		return fmt.Errorf("starting the sandbox: %w", err)
	}
	d.printf("(took %s)\n", time.Since(start).Round(time.Second))
	for _, s := range d.sections() {
		d.say(s.title)
		if why := d.skip(s); why != "" {
			d.printf("  (skipped: %s)\n", why)
			continue
		}
		if err := s.run(); err != nil {
			return fmt.Errorf("section %q: %w", s.title, err)
		}
	}
	d.next()
	return nil
}

// testdata is the directory of the objects the demo applies, shared with
// the e2e tests.
func testdata(repo string) string { return filepath.Join(repo, "test", "e2e", "testdata", "demo") }
