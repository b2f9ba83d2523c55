package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/bench/benchbuild"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

const (
	region    = "us-east-1"
	keyID     = "AKIACLOUDBENCH"
	secretKey = "cloudbench-secret"
)

// env is one cluster, the emulator and the controller binary.
type env struct {
	sb     *sandbox.Sandbox
	cfg    *rest.Config
	c      client.Client
	kcfg   string
	bin    string
	emu    *awsemu.Server
	emuURL string
	srv    *http.Server
}

func start(ctx context.Context, s settings) (*env, error) {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return nil, fmt.Errorf("tools %v missing: run 'make tools'", missing)
	}
	dir, err := os.MkdirTemp("", "cloudbench-")
	if err != nil {
		return nil, err
	}
	e := &env{sb: sandbox.New(sandbox.Options{Dir: dir, APIPortBase: s.base, NodesPerCluster: 1, Tools: &tools, Progress: os.Stderr})}
	if err := e.setUp(ctx, s); err != nil {
		e.down()
		return nil, err
	}
	return e, nil
}

func (e *env) setUp(ctx context.Context, s settings) error {
	st, err := e.sb.Up(ctx, 1)
	if err != nil {
		return err
	}
	e.kcfg = st.Kubeconfig
	if e.cfg, err = clientcmd.BuildConfigFromFlags("", e.kcfg); err != nil {
		return err
	}
	e.cfg.QPS, e.cfg.Burst = 100, 200
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	if e.c, err = client.New(e.cfg, client.Options{Scheme: sch}); err != nil {
		return err
	}
	if e.bin, err = benchbuild.Program(filepath.Join(e.sb.Dir(), "bin"), "cloud-controller"); err != nil {
		return err
	}
	return e.startCloud(s)
}

// startCloud serves an emulator holding s.vms instances over s.vpcs VPCs.
func (e *env) startCloud(s settings) error {
	e.emu = awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{{AccessKeyID: keyID, SecretAccessKey: secretKey}}})
	var vpcs []string
	for i := range s.vpcs {
		id, err := e.emu.AddVPC(awsemu.VPCSpec{Region: region, Name: fmt.Sprintf("vpc-%d", i), CIDR: fmt.Sprintf("10.%d.0.0/16", i)})
		if err != nil {
			return err
		}
		vpcs = append(vpcs, id)
	}
	for i := range s.vms {
		spec := awsemu.InstanceSpec{Region: region, VPCID: vpcs[i%len(vpcs)], Name: fmt.Sprintf("vm-%05d", i),
			Tags: map[string]string{"env": "prod", "team": fmt.Sprintf("team-%d", i%20), "Cost Center": "R&D / 42"}}
		if _, err := e.emu.AddInstance(spec); err != nil {
			return err
		}
	}
	e.emu.SetLatency(s.latency)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	e.emuURL = "http://" + l.Addr().String()
	e.srv = &http.Server{Handler: e.emu, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = e.srv.Serve(l) }()
	return nil
}

// bareRead is the baseline: one inventory of the account through the SDK
// provider, in seconds.
func (e *env) bareRead(ctx context.Context) (float64, error) {
	p, err := aws.New(aws.Options{AccessKeyID: keyID, SecretAccessKey: secretKey, Endpoint: e.emuURL})
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if _, err := p.Inventory(ctx, region); err != nil {
		return 0, err
	}
	return time.Since(start).Seconds(), nil
}

func (e *env) down() {
	if e.srv != nil {
		_ = e.srv.Close()
	}
	_ = e.sb.Down(context.Background())
	_ = os.RemoveAll(e.sb.Dir())
}

// controllerProc is a running cloud-controller.
type controllerProc struct {
	cmd         *exec.Cmd
	metricsAddr string
}

func (e *env) startController(s settings, run int) (*controllerProc, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	logFile, err := os.Create(filepath.Join(e.sb.Dir(), fmt.Sprintf("cloud-controller-%d.log", run)))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(e.bin, "--kubeconfig", e.kcfg, "--context", "member-1", "--metrics-bind-address", addr,
		"--poll-interval-override", s.interval.String())
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &controllerProc{cmd: cmd, metricsAddr: addr}, nil
}

func (p *controllerProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}
