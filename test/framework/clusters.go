package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
)

// RequireEnv, when set to 1 (as `make test` does), turns a missing toolchain
// into a failure instead of a skip.
const RequireEnv = "ANTREAPLUS_REQUIRE_CLUSTERS"

// Clusters is a running set of real clusters named member-1 ... member-N.
type Clusters struct {
	Sandbox *sandbox.Sandbox
	Names   []string
	configs map[string]*rest.Config
}

// rootDir holds the sandboxes of test runs; each is named after its owner pid.
func rootDir() string {
	return filepath.Join(os.TempDir(), "antreaplus-test-sandboxes")
}

// NewSandboxDir is a fresh directory for a sandbox that a test starts some
// other way (a program's 'sandbox up'): named after the test process, so
// that a later run removes it should this one die.
func NewSandboxDir() (string, error) {
	return os.MkdirTemp(ensureDir(rootDir()), fmt.Sprintf("pid%d-", os.Getpid()))
}

// Start runs n clusters in a fresh sandbox directory. It removes sandboxes
// whose test process is gone first.
func Start(ctx context.Context, n int) (*Clusters, error) { return StartWith(ctx, n, Options{}) }

// Options shape the clusters Start runs.
type Options struct {
	// SingleStack names the clusters whose Services are IPv4 only; the
	// others are dual-stack, as a sandbox's are.
	SingleStack []string
	// Light runs light members (pkg/sandbox/light.go): etcd and
	// kube-apiserver only.
	Light bool
}

// StartWith runs n clusters shaped by opts in a fresh sandbox directory.
func StartWith(ctx context.Context, n int, opts Options) (*Clusters, error) {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s missing from %s (run 'make tools')", errNoTools, strings.Join(missing, ", "), tools.Dir)
	}
	reapOrphans(ctx, tools)
	dir, err := os.MkdirTemp(ensureDir(rootDir()), fmt.Sprintf("pid%d-", os.Getpid()))
	if err != nil {
		return nil, err
	}
	base, err := freePortBase(n)
	if err != nil {
		return nil, err
	}
	sb := sandbox.New(sandbox.Options{Dir: dir, APIPortBase: base, NodesPerCluster: 2, Tools: &tools, Progress: logWriter{}, SingleStack: opts.SingleStack, Light: opts.Light})
	st, err := sb.Up(ctx, n)
	if err != nil {
		_ = sb.Down(context.Background())
		return nil, err
	}
	c := &Clusters{Sandbox: sb, configs: map[string]*rest.Config{}}
	for _, p := range st.Clusters {
		cfg, err := clientcmd.NewNonInteractiveClientConfig(mustLoad(st.Kubeconfig), p.Name, nil, nil).ClientConfig()
		if err != nil {
			_ = sb.Down(context.Background())
			return nil, fmt.Errorf("client config of %s: %w", p.Name, err)
		}
		cfg.QPS, cfg.Burst = 500, 1000
		c.Names = append(c.Names, p.Name)
		c.configs[p.Name] = cfg
	}
	return c, nil
}

// Stop stops every cluster and removes the sandbox directory.
func (c *Clusters) Stop() error {
	if c == nil || c.Sandbox == nil {
		return nil
	}
	return c.Sandbox.Down(context.Background())
}

// Config returns an admin rest.Config of a cluster.
func (c *Clusters) Config(t testing.TB, name string) *rest.Config {
	t.Helper()
	cfg, ok := c.configs[name]
	if !ok {
		t.Fatalf("no cluster %q (have %v)", name, c.Names)
	}
	return rest.CopyConfig(cfg)
}

// Client returns a controller-runtime client of a cluster that knows every
// project type, and watches.
func (c *Clusters) Client(t testing.TB, name string) client.WithWatch {
	t.Helper()
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.NewWithWatch(c.Config(t, name), client.Options{Scheme: s})
	if err != nil {
		t.Fatalf("client of %s: %v", name, err)
	}
	return cl
}

// Namespace creates a namespace unique to the test in a cluster and deletes it when the test ends.
func (c *Clusters) Namespace(t testing.TB, cluster string) string {
	t.Helper()
	cl := c.Client(t, cluster)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"}}
	if err := cl.Create(t.Context(), ns); err != nil {
		t.Fatalf("creating namespace in %s: %v", cluster, err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.WithoutCancel(t.Context()), ns) })
	return ns.Name
}

// Eventually retries check every 100 ms until it returns nil, failing the test with its last error after timeout.
func Eventually(t testing.TB, timeout time.Duration, check func() error) {
	t.Helper()
	EventuallyEvery(t, timeout, 100*time.Millisecond, check)
}

// EventuallyEvery is Eventually for checks too costly to run every 100 ms
// (lists of thousands of objects).
func EventuallyEvery(t testing.TB, timeout, interval time.Duration, check func() error) {
	t.Helper()
	// Without t.Context()'s cancellation: it is cancelled before the test's
	// Cleanup functions run, and they wait too (for a namespace to go).
	if err := Poll(context.WithoutCancel(t.Context()), timeout, interval, check); err != nil {
		t.Fatal(err)
	}
}

// Poll calls check every interval until it returns nil; after timeout, or
// once ctx ends, it returns check's last error. The tests' Eventually and
// programs without a testing.T (the demo) wait the same way.
func Poll(ctx context.Context, timeout, interval time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("condition not met within %s: %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		case <-time.After(interval):
		}
	}
}

func mustLoad(path string) clientcmdConfig {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		panic(fmt.Sprintf("loading %s: %v", path, err))
	}
	return *cfg
}

func ensureDir(d string) string {
	_ = os.MkdirAll(d, 0o755)
	return d
}

// freePortBase finds a base port whose whole sandbox port range is free,
// in a slot no other test sandbox shares (sandbox.FreeBase).
func freePortBase(n int) (int, error) { return sandbox.FreeBase(n) }

// reapOrphans stops and removes the sandboxes of test processes that died
// without cleaning up (e.g. killed by a timeout).
func reapOrphans(ctx context.Context, tools toolchain.Toolchain) {
	dirs, _ := filepath.Glob(filepath.Join(rootDir(), "pid*-*"))
	for _, d := range dirs {
		pidStr := strings.TrimPrefix(strings.SplitN(filepath.Base(d), "-", 2)[0], "pid")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || sandbox.Alive(pid) {
			continue
		}
		_ = sandbox.New(sandbox.Options{Dir: d, Tools: &tools}).Down(ctx)
	}
}

type logWriter struct{}

func (logWriter) Write(p []byte) (int, error) {
	if os.Getenv("ANTREAPLUS_TEST_VERBOSE") != "" {
		return os.Stderr.Write(p)
	}
	return len(p), nil
}
