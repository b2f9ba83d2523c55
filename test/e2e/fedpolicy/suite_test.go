package fedpolicy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/framework"
)

// The sandbox: three members, member-1 and member-2 supervisors, AWS
// imported into member-1 and Azure into member-2, the tenants of --tenancy
// in member-1.
const (
	nClusters    = 3
	nSupervisors = 2
	ns           = "cloud-demo"
	// grace is how long a member may be unreachable from every supervisor
	// before what it exported is withdrawn (--unreachable-grace).
	grace = 15 * time.Second
)

// managerArgs shorten the waits the faults sit through.
var managerArgs = []string{"--unreachable-grace=" + grace.String(), "--status-period=1s", "--handover-hold-down=3s"}

// programs are what 'sandbox up' runs: found next to antreaplus.
var programs = []string{"antreaplus", "federation-manager", "member-controller", "coredns",
	"cloud-emulator", "cloud-controller", "policy-controller", "vm-agent"}

// env is the package's sandbox.
type env struct {
	dir     string
	bin     string
	tools   toolchain.Toolchain
	up      []string
	sb      *sandbox.Sandbox
	vms     map[string]sandbox.AgentVM
	clients map[string]client.Client
}

var sbx *env

func TestMain(m *testing.M) {
	code := run(m)
	framework.RemoveBuilt()
	os.Exit(code)
}

func run(m *testing.M) int {
	if err := preflight(); err != nil {
		if os.Getenv(framework.RequireEnv) == "1" {
			fmt.Fprintf(os.Stderr, "FAIL: test/e2e/fedpolicy cannot run: %v\n", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "SKIP: test/e2e/fedpolicy: %v\n", err)
		return 0
	}
	started := time.Now()
	e, err := start()
	if e != nil {
		// Stop the sandbox on Ctrl-C or SIGTERM too.
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			if _, ok := <-sig; ok {
				e.down()
				os.Exit(1)
			}
		}()
		defer func() {
			signal.Stop(sig)
			close(sig)
			e.down()
		}()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting the sandbox: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "fedpolicy: sandbox of %d clusters with the local cloud and agented VMs ready in %s\n",
		nClusters, time.Since(started).Round(100*time.Millisecond))
	sbx = e
	return m.Run()
}

// preflight says why the package cannot run here, if it cannot.
func preflight() error {
	if err := sandbox.VMAgentsSupported(); err != nil {
		return err
	}
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return fmt.Errorf("tools %v missing from %s: run 'make tools'", missing, tools.Dir)
	}
	return nil
}

// start runs 'antreaplus sandbox up' in a directory and port slot of its
// own; the returned env, when not nil, must be brought down.
func start() (*env, error) {
	e := &env{tools: toolchain.Toolchain{Dir: toolchain.DefaultDir()}, vms: map[string]sandbox.AgentVM{}, clients: map[string]client.Client{}}
	for _, name := range programs {
		p, err := framework.Binary(name)
		if err != nil {
			return nil, err
		}
		if name == "antreaplus" {
			e.bin = p
		}
	}
	dir, err := framework.NewSandboxDir()
	if err != nil {
		return nil, err
	}
	e.dir = dir
	base, err := sandbox.FreeBase(nClusters)
	if err != nil {
		return e, err
	}
	e.up = []string{"sandbox", "up", "--clusters", strconv.Itoa(nClusters), "--supervisors", strconv.Itoa(nSupervisors),
		"--nodes", "2", "--cloud", "--tenancy", "--networks", "--vm-agents", "--api-port-base", strconv.Itoa(base)}
	for _, a := range managerArgs {
		e.up = append(e.up, "--manager-arg="+a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := e.run(ctx, e.up...); err != nil {
		return e, fmt.Errorf("antreaplus %s: %w\n%s", strings.Join(e.up, " "), err, out)
	}
	return e, e.load()
}

// load reads the sandbox's VMs and makes a client of every member.
func (e *env) load() error {
	e.sb = sandbox.New(sandbox.Options{Dir: e.dir})
	vms, err := e.sb.AgentVMs()
	if err != nil {
		return err
	}
	for _, vm := range vms {
		e.vms[vm.Name] = vm
	}
	s, err := scheme.New()
	if err != nil {
		return err
	}
	for i := 1; i <= nClusters; i++ {
		name := sandbox.ClusterName(i)
		cfg, err := e.sb.RESTConfig(name)
		if err != nil {
			return err
		}
		if e.clients[name], err = client.New(cfg, client.Options{Scheme: s}); err != nil {
			return fmt.Errorf("client of %s: %w", name, err)
		}
	}
	return nil
}

// down stops every process of the sandbox and removes its directory.
func (e *env) down() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := e.run(ctx, "sandbox", "down"); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox down: %v\n%s", err, out)
	}
}

// run runs antreaplus against the sandbox (--dir for sandbox commands, its
// kubeconfig for the others) and returns its output; what it wrote on
// stderr (progress, errors) is in the error when it fails.
func (e *env) run(ctx context.Context, args ...string) (string, error) {
	if args[0] == "sandbox" {
		args = append(args, "--dir", e.dir)
	}
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Env = append(os.Environ(), toolchain.DirEnv+"="+e.tools.Dir, "KUBECONFIG="+filepath.Join(e.dir, "kubeconfig"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%w: %s", err, errOut.String())
	}
	return out.String(), nil
}

// antreaplus runs the CLI and fails the test when it fails.
func antreaplus(t testing.TB, args ...string) string {
	t.Helper()
	// (It also runs from cleanups, when t.Context() is already cancelled.)
	// `sandbox up` again re-checks every cluster, the federation, the cloud
	// and the agents: on a loaded CI machine it took over 2 minutes.
	limit := 2 * time.Minute
	if args[0] == "sandbox" {
		limit = 6 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), limit)
	defer cancel()
	start := time.Now()
	out, err := sbx.run(ctx, args...)
	if err != nil {
		t.Fatalf("antreaplus %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("antreaplus %s (%s)", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out
}

// antreaplusErr runs the CLI and returns its output and error, for a
// command the test retries.
func antreaplusErr(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return sbx.run(ctx, args...)
}

// cl is the admin client of a member.
func cl(cluster string) client.Client { return sbx.clients[cluster] }

// vm is a VM of the sandbox by name.
func vm(t testing.TB, name string) sandbox.AgentVM {
	t.Helper()
	v, ok := sbx.vms[name]
	if !ok {
		t.Fatalf("the sandbox plays no VM %s", name)
	}
	return v
}
