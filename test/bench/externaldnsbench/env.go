package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/crdinstall"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
)

const (
	fedID     = "bench"
	namespace = "shop"
	domain    = "ext.bench.antreaplus.test"
	writer    = "member-1" // the supervisor whose members' names ExternalDNS publishes
	exporter  = "member-2"
)

// env is the sandbox federation and the external DNS stack.
type env struct {
	dir     string
	sb      *sandbox.Sandbox
	a, b    client.Client
	dns     string // host:port of the external DNS server
	procs   []*exec.Cmd
	logs    []string
	members int
}

// setUp starts two clusters federated by member-1's manager, member-1 asking
// for external DNS, and the stack: etcd, ExternalDNS (CRD and service
// sources) and CoreDNS answering the domain from etcd.
func setUp(ctx context.Context, s settings) (*env, error) {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(append(toolchain.SandboxTools(), toolchain.ExternalDNSTools()...)...); len(missing) > 0 {
		return nil, fmt.Errorf("tools %v missing: run 'make tools'", missing)
	}
	dir, err := os.MkdirTemp("", "externaldnsbench-")
	if err != nil {
		return nil, err
	}
	e := &env{dir: dir, members: 2}
	e.sb = sandbox.New(sandbox.Options{Dir: dir, APIPortBase: s.base, NodesPerCluster: 2, Tools: &tools, Progress: os.Stderr})
	if _, err := e.sb.Up(ctx, e.members); err != nil {
		return e, err
	}
	// ExternalDNS (and its CRD) is installed before the federation, as an
	// operator would.
	cfg, err := e.sb.RESTConfig(writer)
	if err != nil {
		return e, err
	}
	crd, err := sandbox.DNSEndpointCRD()
	if err != nil {
		return e, err
	}
	if err := crdinstall.Install(ctx, cfg, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
		return e, err
	}
	mgr, err := e.sb.FindBinary(ctx, "federation-manager")
	if err != nil {
		return e, err
	}
	coredns, err := e.sb.FindBinary(ctx, "coredns")
	if err != nil {
		return e, err
	}
	if err := e.sb.Federate(ctx, sandbox.FederationOptions{FederationID: fedID, Supervisors: 1, ManagerBinary: mgr,
		ManagerArgs: []string{"--unreachable-grace=" + s.grace.String(), "--status-period=1s"}}); err != nil {
		return e, err
	}
	sch, err := scheme.New()
	if err != nil {
		return e, err
	}
	for _, m := range []struct {
		name string
		c    *client.Client
	}{{writer, &e.a}, {exporter, &e.b}} {
		cfg, err := e.sb.RESTConfig(m.name)
		if err != nil {
			return e, err
		}
		cfg.QPS, cfg.Burst = 200, 400
		if *m.c, err = client.New(cfg, client.Options{Scheme: sch}); err != nil {
			return e, err
		}
		if err := (*m.c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return e, fmt.Errorf("namespace in %s: %w", m.name, err)
		}
	}
	cm := &federationv1alpha1.ClusterMembership{}
	if err := e.a.Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); err != nil {
		return e, fmt.Errorf("the membership of %s: %w", writer, err)
	}
	cm.Spec.ExternalDNS = &federationv1alpha1.ExternalDNSSpec{Domain: domain, RecordTTL: 30}
	if err := e.a.Update(ctx, cm); err != nil {
		return e, fmt.Errorf("asking %s for external DNS: %w", writer, err)
	}
	return e, e.startStack(ctx, s, tools, coredns)
}

// startStack runs etcd, CoreDNS answering the domain from it, and
// ExternalDNS reading member-1 (its DNSEndpoints in antreaplus-system, and
// its annotated Services) into it.
func (e *env) startStack(ctx context.Context, s settings, tools toolchain.Toolchain, coredns string) error {
	etcd := "http://" + freeAddr()
	if err := e.start("etcd", nil, tools.Path("etcd"), "--name=default", "--data-dir="+filepath.Join(e.dir, "ext-etcd"),
		"--listen-client-urls="+etcd, "--advertise-client-urls="+etcd, "--listen-peer-urls=http://"+freeAddr(),
		"--unsafe-no-fsync=true"); err != nil {
		return err
	}
	e.dns = freeAddr()
	ready := freeAddr()
	host, port, _ := net.SplitHostPort(e.dns)
	corefile := fmt.Sprintf("%s {\n    bind %s\n    ready %s\n    errors\n    etcd %s {\n        path /skydns\n        endpoint %s\n    }\n}\n",
		domain, host, ready, domain, etcd)
	path := filepath.Join(e.dir, "external.Corefile")
	if err := os.WriteFile(path, []byte(corefile), 0o644); err != nil {
		return err
	}
	if err := e.start("coredns", nil, coredns, "-conf", path, "-dns.port", port); err != nil {
		return err
	}
	if err := waitHTTP(ctx, "http://"+ready+"/ready"); err != nil {
		return fmt.Errorf("the external CoreDNS: %w", err)
	}
	kc, err := clientcmd.LoadFromFile(e.sb.KubeconfigPath())
	if err != nil {
		return err
	}
	kc.CurrentContext = writer
	kubeconfig := filepath.Join(e.dir, "external-dns.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		return err
	}
	metrics := freeAddr()
	if err := e.start("external-dns", []string{"ETCD_URLS=" + etcd}, tools.Path("external-dns"),
		"--kubeconfig="+kubeconfig,
		"--source=crd", "--crd-source-apiversion=externaldns.k8s.io/v1alpha1", "--crd-source-kind=DNSEndpoint",
		"--source=service",
		"--provider=coredns", "--registry=txt", "--txt-owner-id=bench", "--domain-filter="+domain, "--policy=sync",
		"--interval="+s.syncInterval.String(), "--events", "--min-event-sync-interval="+s.minEventSync.String(),
		"--metrics-address="+metrics, "--log-level=debug"); err != nil {
		return err
	}
	return waitHTTP(ctx, "http://"+metrics+"/healthz")
}

// start runs a program of the stack until tearDown, its output in a log file.
func (e *env) start(name string, env []string, bin string, args ...string) error {
	logPath := filepath.Join(e.dir, name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	e.procs, e.logs = append(e.procs, cmd), append(e.logs, logPath)
	return nil
}

// tearDown stops the stack and the sandbox; logs copies the logs first.
func (e *env) tearDown(logs string) {
	if logs != "" && e.sb != nil {
		if err := os.MkdirAll(logs, 0o755); err == nil {
			_ = exec.Command("cp", append(append([]string{"-r"}, e.logs...), e.sb.ManagerDir(), logs)...).Run()
			fmt.Fprintf(os.Stderr, "externaldnsbench: logs in %s\n", logs)
		}
	}
	for _, p := range e.procs {
		_ = p.Process.Kill()
		_ = p.Wait()
	}
	if e.sb != nil {
		_ = e.sb.Down(context.Background())
	}
	_ = os.RemoveAll(e.dir)
}

// killAPIServer kills a member's kube-apiserver, as a crash would.
func (e *env) killAPIServer(member string) error {
	raw, err := os.ReadFile(filepath.Join(e.sb.ClusterDir(member), "pids", "kube-apiserver.pid"))
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(string(trimSpace(raw)))
	if err != nil {
		return err
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// freeAddr is a free loopback host:port (TCP and UDP).
func freeAddr() string {
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		if p, err := net.ListenPacket("udp", addr); err == nil {
			_ = p.Close()
			return addr
		}
	}
}

func waitHTTP(ctx context.Context, url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if r, err := httpGet(url); err == nil && r {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer within 30s", url)
}

// httpGet tells whether url answers 200.
func httpGet(url string) (bool, error) {
	r, err := http.Get(url) //nolint:gosec,noctx // a loopback URL of the bench's own process
	if err != nil {
		return false, err
	}
	_ = r.Body.Close()
	return r.StatusCode == http.StatusOK, nil
}
