package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
)

// The federation: member-1 exports, member-2 enforces (the agented VM and
// the policy controller are there), member-3 imports as well; member-1
// and member-2 are the supervisors.
const (
	members     = 3
	supervisors = 2
	exporter    = "member-1"
	enforcer    = "member-2"
	namespace   = "bench"
)

// member is one cluster as the bench sees it.
type member struct {
	name string
	cfg  *rest.Config
	c    client.WithWatch
	// controllerMetrics is the URL of its member controller's metrics.
	controllerMetrics string
}

// env is the running federation: clusters, federation managers and member
// controllers, all started by the bench.
type env struct {
	dir, logs string
	sb        *sandbox.Sandbox
	procs     *procs
	members   map[string]*member
	// managerMetrics are the URLs of the federation managers' metrics.
	managerMetrics []string
	bins           map[string]string
}

// programs the bench runs, from cmd/.
var programs = []string{"federation-manager", "member-controller", "policy-controller", "vm-agent"}

// startEnv brings up the clusters and the federation. What it started is
// stopped by cl, also when it fails.
func startEnv(ctx context.Context, dir string, cl *cleanup) (*env, error) {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return nil, fmt.Errorf("tools %v missing from %s: run 'make tools'", missing, tools.Dir)
	}
	base, err := sandbox.FreeBase(members)
	if err != nil {
		return nil, err
	}
	e := &env{dir: dir, logs: filepath.Join(dir, "logs"), procs: &procs{}, members: map[string]*member{}, bins: map[string]string{}}
	if err := os.MkdirAll(e.logs, 0o755); err != nil {
		return nil, err
	}
	e.sb = sandbox.New(sandbox.Options{Dir: filepath.Join(dir, "sandbox"), APIPortBase: base, NodesPerCluster: 1, Tools: &tools, Progress: prefixed{os.Stderr}})
	cl.add(func() { _ = e.sb.Down(context.Background()) })
	cl.add(e.procs.stopAll)
	for _, name := range programs {
		if e.bins[name], err = e.sb.FindBinary(ctx, name); err != nil {
			return nil, err
		}
	}
	started := time.Now()
	st, err := e.sb.Up(ctx, members)
	if err != nil {
		return nil, err
	}
	sch, err := scheme.New()
	if err != nil {
		return nil, err
	}
	for _, p := range st.Clusters {
		cfg, err := e.sb.RESTConfig(p.Name)
		if err != nil {
			return nil, err
		}
		cfg.QPS, cfg.Burst = 200, 400
		c, err := client.NewWithWatch(cfg, client.Options{Scheme: sch})
		if err != nil {
			return nil, err
		}
		e.members[p.Name] = &member{name: p.Name, cfg: cfg, c: c}
	}
	logf("%d clusters up in %s", members, time.Since(started).Round(100*time.Millisecond))
	if err := e.federate(ctx); err != nil {
		return nil, err
	}
	for _, m := range e.members {
		if err := m.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
			return nil, fmt.Errorf("creating namespace %s in %s: %w", namespace, m.name, err)
		}
	}
	return e, nil
}

// federate forms the federation, runs a federation manager in each
// supervisor and a member controller in every member, each serving its
// metrics, and waits until every member is led.
func (e *env) federate(ctx context.Context) error {
	var clusters []membership.Cluster
	for i := 1; i <= members; i++ {
		m := e.member(i)
		clusters = append(clusters, membership.Cluster{Name: m.name, Config: rest.CopyConfig(m.cfg)})
	}
	sups := clusters[:supervisors]
	if err := membership.Create(ctx, io.Discard, "bench", sups, membership.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the federation: %w", err)
	}
	for _, c := range clusters[supervisors:] {
		if _, err := membership.Join(ctx, io.Discard, c, "", sups, membership.JoinOptions{FederationID: "bench"}); err != nil {
			return fmt.Errorf("joining %s: %w", c.Name, err)
		}
	}
	for _, c := range sups {
		url, err := e.startController("federation-manager", c.Name)
		if err != nil {
			return err
		}
		e.managerMetrics = append(e.managerMetrics, url)
	}
	for _, c := range clusters {
		url, err := e.startController("member-controller", c.Name)
		if err != nil {
			return err
		}
		e.members[c.Name].controllerMetrics = url
	}
	return e.waitLed(ctx, 2*time.Minute)
}

func (e *env) member(i int) *member { return e.members[fmt.Sprintf("member-%d", i)] }

// startController runs program against cluster, with its metrics on a
// free loopback port, and returns the metrics URL.
func (e *env) startController(program, cluster string) (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(e.bins[program], "--kubeconfig", e.sb.KubeconfigPath(), "--context", cluster, "--metrics-bind-address", addr)
	if _, err := e.procs.start(program+" "+cluster, filepath.Join(e.logs, cluster+"."+program+".log"), cmd); err != nil {
		return "", err
	}
	return "http://" + addr + "/metrics", nil
}

// waitLed waits until every member's leader Lease has a holder.
func (e *env) waitLed(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		unled := ""
		for _, m := range e.members {
			l := &coordinationv1.Lease{}
			err := m.c.Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.LeaderLease}, l)
			if err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
				unled = m.name
				break
			}
		}
		if unled == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s has no leader after %s:\n%s", unled, timeout, e.procs.dead())
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// freePort is a TCP port free on the loopback now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fedpolicybench: "+format+"\n", args...)
}

// prefixed writes the sandbox's progress lines under the bench's name.
type prefixed struct{ w io.Writer }

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "fedpolicybench: sandbox: %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}
