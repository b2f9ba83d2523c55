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

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/tenancy"
	"antreaplus.io/antreaplus/pkg/toolchain"
	"antreaplus.io/antreaplus/test/bench/benchbuild"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

const region = "us-east-1"

// env is one cluster, the emulator with an account per tenant, the
// tenants and the controller binary.
type env struct {
	sb      *sandbox.Sandbox
	c       client.Client
	kcfg    string
	bin     string
	emu     *awsemu.Server
	emuURL  string
	srv     *http.Server
	tenants []tenant
}

// tenant is a Namespace with its own access key and VPC.
type tenant struct {
	ns, key, secret, vpc string
}

func start(ctx context.Context, s settings) (*env, error) {
	tools := toolchain.Toolchain{Dir: toolchain.DefaultDir()}
	if missing := tools.Missing(toolchain.SandboxTools()...); len(missing) > 0 {
		return nil, fmt.Errorf("tools %v missing: run 'make tools'", missing)
	}
	dir, err := os.MkdirTemp("", "tenancybench-")
	if err != nil {
		return nil, err
	}
	if s.base == 0 {
		if s.base, err = sandbox.FreeBase(1); err != nil {
			return nil, err
		}
	}
	e := &env{sb: sandbox.New(sandbox.Options{Dir: dir, APIPortBase: s.base, NodesPerCluster: 1, Tools: &tools, Progress: os.Stderr})}
	if err := e.setUp(ctx, s); err != nil {
		e.down(true)
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
	cfg, err := clientcmd.BuildConfigFromFlags("", e.kcfg)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 200, 400
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	if e.c, err = client.New(cfg, client.Options{Scheme: sch}); err != nil {
		return err
	}
	if e.bin, err = benchbuild.Program(filepath.Join(e.sb.Dir(), "bin"), "cloud-controller"); err != nil {
		return err
	}
	if err := e.startCloud(s); err != nil {
		return err
	}
	started := time.Now()
	if err := e.createTenants(ctx); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d tenants created in %.1fs\n", len(e.tenants), time.Since(started).Seconds())
	return nil
}

// startCloud serves an emulator with an access key and a VPC of s.vms
// instances per tenant (every key sees every VPC: each tenant's selector
// picks its own).
func (e *env) startCloud(s settings) error {
	var creds []awsemu.Credential
	for i := range s.tenants {
		tn := tenant{ns: fmt.Sprintf("tenant-%03d", i), key: fmt.Sprintf("AKIATENANCYBENCH%03d", i),
			secret: fmt.Sprintf("tenancybench-secret-%d", i), vpc: fmt.Sprintf("vpc-%03d", i)}
		e.tenants = append(e.tenants, tn)
		creds = append(creds, awsemu.Credential{AccessKeyID: tn.key, SecretAccessKey: tn.secret})
	}
	e.emu = awsemu.New(awsemu.Options{Credentials: creds, PollGap: s.gap})
	for i, tn := range e.tenants {
		id, err := e.emu.AddVPC(awsemu.VPCSpec{Region: region, Name: tn.vpc, CIDR: fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)})
		if err != nil {
			return err
		}
		for j := range s.vms {
			if _, err := e.emu.AddInstance(awsemu.InstanceSpec{Region: region, VPCID: id, Name: fmt.Sprintf("%s-vm-%d", tn.vpc, j)}); err != nil {
				return err
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	e.emuURL = "http://" + l.Addr().String()
	e.srv = &http.Server{Handler: e.emu, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = e.srv.Serve(l) }()
	return nil
}

// createTenants creates every tenant's Namespace, Secret, account and
// selector.
func (e *env) createTenants(ctx context.Context) error {
	for _, tn := range e.tenants {
		objs := []client.Object{
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tn.ns, Labels: map[string]string{tenancyv1alpha1.LabelTenant: "true"}}},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: tn.ns, Name: "aws"},
				StringData: map[string]string{"accessKeyID": tn.key, "secretAccessKey": tn.secret}},
			&cloudv1alpha1.CloudProviderAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tn.ns, Name: "aws"},
				Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS, PollIntervalSeconds: ptr.To[int32](30),
					AWS: &cloudv1alpha1.AWSAccountConfig{Regions: []string{region}, Endpoint: e.emuURL,
						Credentials: cloudv1alpha1.AWSCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: "aws"}}}}},
			&cloudv1alpha1.CloudEntitySelector{ObjectMeta: metav1.ObjectMeta{Namespace: tn.ns, Name: "aws"},
				Spec: cloudv1alpha1.CloudEntitySelectorSpec{AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "aws"},
					VirtualMachines: []cloudv1alpha1.VirtualMachineMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{Names: []string{tn.vpc}}}}}},
		}
		for _, o := range objs {
			if err := e.c.Create(ctx, o); err != nil {
				return fmt.Errorf("creating %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
			}
		}
	}
	return nil
}

// down stops the cluster and removes its directory; after a failure, the
// controllers' logs are kept and their place printed.
func (e *env) down(failed bool) {
	if e.srv != nil {
		_ = e.srv.Close()
	}
	if logs, _ := filepath.Glob(filepath.Join(e.sb.Dir(), "cloud-controller-*.log")); failed && len(logs) > 0 {
		if dir, err := os.MkdirTemp("", "tenancybench-logs-"); err == nil {
			for _, l := range logs {
				_ = os.Rename(l, filepath.Join(dir, filepath.Base(l)))
			}
			fmt.Fprintf(os.Stderr, "the controllers' logs are in %s\n", dir)
		}
	}
	_ = e.sb.Down(context.Background())
	_ = os.RemoveAll(e.sb.Dir())
}

// replica is a running cloud-controller: a replica of the shared instance
// claiming in the namespace leases.
type replica struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

func (e *env) startReplica(s settings, leases, name string) (*replica, error) {
	logFile, err := os.Create(filepath.Join(e.sb.Dir(), "cloud-controller-"+name+".log"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = logFile.Close() }()
	cmd := exec.Command(e.bin, "--kubeconfig", e.kcfg, "--context", "member-1",
		"--poll-interval-override", s.interval.String(),
		"--tenancy-namespace", leases, "--tenancy-replica", name,
		"--tenancy-lease-duration", s.lease.String(), "--tenancy-renew-period", s.renew.String())
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &replica{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(r.done) }()
	return r, nil
}

// kill ends the replica with SIGKILL: it releases nothing.
func (r *replica) kill() {
	_ = r.cmd.Process.Kill()
	<-r.done
}

// stop ends the replica with SIGTERM (it releases its claims), or SIGKILL
// after 20 s.
func (r *replica) stop() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		r.kill()
	}
}

// holders maps each tenant whose claim in leases is current to the
// replica holding it.
func (e *env) holders(ctx context.Context, leases string) (map[string]string, error) {
	var list coordinationv1.LeaseList
	if err := e.c.List(ctx, &list, client.InNamespace(leases), client.MatchingLabels{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseClaim}); err != nil {
		return nil, err
	}
	now := time.Now()
	out := map[string]string{}
	for _, l := range list.Items {
		if l.Spec.RenewTime == nil || l.Spec.RenewTime.Add(time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0))*time.Second).Before(now) {
			continue
		}
		if _, rep := tenancy.SplitHolder(ptr.Deref(l.Spec.HolderIdentity, "")); rep != "" {
			out[l.Labels[tenancyv1alpha1.LabelTenant]] = rep
		}
	}
	return out, nil
}

// vms are the UIDs of every VirtualMachine of the tenants.
func (e *env) vms(ctx context.Context) (map[string]bool, error) {
	var l cloudv1alpha1.VirtualMachineList
	if err := e.c.List(ctx, &l); err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(l.Items))
	for _, vm := range l.Items {
		out[string(vm.UID)] = true
	}
	return out, nil
}

// waitFor retries check every interval until it returns nil, or fails
// with its last error after timeout.
func waitFor(ctx context.Context, timeout, interval time.Duration, what string, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not done in %s: %w", what, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}
