package tenancy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
	"antreaplus.io/antreaplus/test/infrastructure/pollstats"
)

// The timings of the controllers, short so that the tests are: a poll
// every 2 s, claims lasting 6 s renewed every 2 s, and poll windows in the
// emulator's stats that end 300 ms after their last call.
const (
	region        = "us-east-1"
	pollInterval  = 2 * time.Second
	leaseDuration = 6 * time.Second
	renewPeriod   = 2 * time.Second
	pollGap       = 300 * time.Millisecond
	// timeout bounds every wait; generous, the machine may be loaded.
	timeout = 60 * time.Second
	// runLabel on a tenant Namespace names the test that made it; every
	// instance a test runs selects it, so that tests never manage each
	// other's tenants.
	runLabel = "tenancy-test.antreaplus.io/run"
	// accountName is the name of every tenant's account, its Secret's
	// prefix and its selector's.
	accountName = "aws"
)

// cloud is the EC2 emulator served over HTTP, with an access key and a VPC
// per tenant (all keys see every VPC: the tenants' selectors pick their
// own).
type cloud struct {
	emu *awsemu.Server
	url string
}

// tenant is a Namespace with an account (its own access key) and a
// selector of the VMs of its VPC.
type tenant struct {
	ns     string
	key    string
	secret string
	vpc    string
	vpcID  string
	vms    int
}

// newTenants serves an emulator with an account per element of labels,
// each with a VPC of vms instances, and makes a tenant Namespace for each,
// labelled for run and with the element's labels.
func newTenants(t *testing.T, c client.Client, run string, vms int, labels ...map[string]string) (*cloud, []*tenant) {
	t.Helper()
	var creds []awsemu.Credential
	tenants := make([]*tenant, len(labels))
	for i := range labels {
		tn := &tenant{key: fmt.Sprintf("AKIA%s%03d", strings.ToUpper(run), i), secret: fmt.Sprintf("%s-secret-%d", run, i),
			vpc: fmt.Sprintf("%s-%d", run, i), vms: vms}
		tenants[i] = tn
		creds = append(creds, awsemu.Credential{AccessKeyID: tn.key, SecretAccessKey: tn.secret})
	}
	emu := awsemu.New(awsemu.Options{Credentials: creds, PollGap: pollGap})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	cl := &cloud{emu: emu, url: srv.URL}
	for i, tn := range tenants {
		id, err := emu.AddVPC(awsemu.VPCSpec{Region: region, Name: tn.vpc, CIDR: fmt.Sprintf("10.%d.0.0/16", i)})
		if err != nil {
			t.Fatal(err)
		}
		tn.vpcID = id
		for j := range vms {
			cl.addVM(t, tn, fmt.Sprintf("%s-vm-%d", tn.vpc, j))
		}
		tn.ns = tenantNamespace(t, c, run, labels[i])
		createAccount(t, c, tn, cl.url)
	}
	return cl, tenants
}

// plain is the labels of n tenants of the shared instance: none.
func plain(n int) []map[string]string { return make([]map[string]string, n) }

// addVM adds an instance to tn's VPC.
func (cl *cloud) addVM(t *testing.T, tn *tenant, name string) {
	t.Helper()
	if _, err := cl.emu.AddInstance(awsemu.InstanceSpec{Region: region, VPCID: tn.vpcID, Name: name}); err != nil {
		t.Fatal(err)
	}
}

// tenantNamespace creates a tenant Namespace labelled for run, deleted
// when the test ends.
func tenantNamespace(t *testing.T, c client.Client, run string, labels map[string]string) string {
	t.Helper()
	l := map[string]string{runLabel: run, tenancyv1alpha1.LabelTenant: "true"}
	for k, v := range labels {
		l[k] = v
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tenant-" + run + "-", Labels: l}}
	if err := c.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.WithoutCancel(t.Context()), ns) })
	return ns.Name
}

// createAccount creates tn's Secret, account and selector.
func createAccount(t *testing.T, c client.Client, tn *tenant, endpoint string) {
	t.Helper()
	objs := []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: tn.ns, Name: accountName + "-credentials"},
			StringData: map[string]string{"accessKeyID": tn.key, "secretAccessKey": tn.secret}},
		&cloudv1alpha1.CloudProviderAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tn.ns, Name: accountName},
			Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS, PollIntervalSeconds: ptr.To[int32](30),
				AWS: &cloudv1alpha1.AWSAccountConfig{Regions: []string{region}, Endpoint: endpoint,
					Credentials: cloudv1alpha1.AWSCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: accountName + "-credentials"}}}}},
		&cloudv1alpha1.CloudEntitySelector{ObjectMeta: metav1.ObjectMeta{Namespace: tn.ns, Name: accountName},
			Spec: cloudv1alpha1.CloudEntitySelectorSpec{AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: accountName},
				VirtualMachines: []cloudv1alpha1.VirtualMachineMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{Names: []string{tn.vpc}}}}}},
	}
	for _, o := range objs {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatalf("creating %T %s/%s: %v", o, o.GetNamespace(), o.GetName(), err)
		}
	}
}

// replica is a cloud-controller process: one replica of an instance.
type replica struct {
	instance, name string
	metrics        string
	log            string
	cmd            *exec.Cmd
	done           chan struct{}
}

// identity is the replica's claims' holderIdentity.
func (r *replica) identity() string { return tenancy.HolderIdentity(r.instance, r.name) }

// startReplica runs the cloud-controller program as replica name of
// instance, claiming in leases the Namespaces selector picks. It is
// stopped when the test ends, and its log's end shown if the test failed.
func startReplica(t *testing.T, leases, instance, name, selector string) *replica {
	t.Helper()
	bin, err := framework.Binary("cloud-controller")
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{instance: instance, name: name, metrics: freeAddress(t), done: make(chan struct{}),
		log: filepath.Join(t.TempDir(), instance+"-"+name+".log")}
	logFile, err := os.Create(r.log)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = logFile.Close() }()
	r.cmd = exec.Command(bin, "--kubeconfig", clusters.Sandbox.KubeconfigPath(), "--context", "member-1",
		"--metrics-bind-address", r.metrics,
		"--poll-interval-override", pollInterval.String(),
		"--tenancy-namespace", leases, "--tenancy-instance", instance, "--tenancy-replica", name,
		"--tenant-selector", selector,
		"--tenancy-lease-duration", leaseDuration.String(), "--tenancy-renew-period", renewPeriod.String())
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	// The process dies with the test's.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", r.identity(), err)
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		r.stop()
		if t.Failed() {
			t.Logf("the end of the log of %s:\n%s", r.identity(), tail(r.log, 40))
		}
	})
	return r
}

// kill ends the replica with SIGKILL: it releases nothing.
func (r *replica) kill(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatalf("killing %s: %v", r.identity(), err)
	}
	<-r.done
}

// stop asks the replica to stop, and kills it if it does not within 10 s.
func (r *replica) stop() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
}

// metric is the value of the series of name whose labels include
// labels (e.g. `instance="rogue"`) on the replica's metrics endpoint, or
// an error when it has none.
func (r *replica) metric(name, labels string) (float64, error) {
	resp, err := http.Get("http://" + r.metrics + "/metrics")
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, name+"{") || !strings.Contains(line, labels) {
			continue
		}
		return strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
	}
	return 0, fmt.Errorf("no series %s{%s} on %s", name, labels, r.identity())
}

// tail is the last n lines of a file.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer func() { _ = f.Close() }()
	var lines []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		lines = append(lines, s.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// holders maps each tenant whose claim in leases is current to its
// holderIdentity.
func holders(ctx context.Context, c client.Client, leases string) (map[string]string, error) {
	var list coordinationv1.LeaseList
	if err := c.List(ctx, &list, client.InNamespace(leases), client.MatchingLabels{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseClaim}); err != nil {
		return nil, err
	}
	now := time.Now()
	out := map[string]string{}
	for _, l := range list.Items {
		holder := ptr.Deref(l.Spec.HolderIdentity, "")
		if holder == "" || l.Spec.RenewTime == nil {
			continue
		}
		if l.Spec.RenewTime.Add(time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0)) * time.Second).Before(now) {
			continue // expired
		}
		out[l.Labels[tenancyv1alpha1.LabelTenant]] = holder
	}
	return out, nil
}

// waitHolders waits until the current claims of the tenants are want
// (tenant Namespace -> holder), and returns when that was first seen.
func waitHolders(t *testing.T, c client.Client, leases string, want map[string]string) time.Time {
	t.Helper()
	framework.Eventually(t, timeout, func() error {
		got, err := holders(t.Context(), c, leases)
		if err != nil {
			return err
		}
		for tn, h := range want {
			if got[tn] != h {
				return fmt.Errorf("claims %v; want %v", got, want)
			}
		}
		return nil
	})
	return time.Now()
}

// waitImported waits until every tenant's VMs are stored in its
// Namespace.
func waitImported(t *testing.T, c client.Client, tenants ...*tenant) {
	t.Helper()
	framework.Eventually(t, timeout, func() error {
		for _, tn := range tenants {
			var l cloudv1alpha1.VirtualMachineList
			if err := c.List(t.Context(), &l, client.InNamespace(tn.ns)); err != nil {
				return err
			}
			if len(l.Items) != tn.vms {
				return fmt.Errorf("tenant %s: %d VMs imported; want %d", tn.ns, len(l.Items), tn.vms)
			}
		}
		return nil
	})
}

// waitWindows waits until the emulator has counted at least n poll
// windows of every tenant's account since its stats were last reset, and
// returns the stats.
func (cl *cloud) waitWindows(t *testing.T, n int, tenants ...*tenant) pollstats.Stats {
	t.Helper()
	var s pollstats.Stats
	framework.Eventually(t, timeout, func() error {
		s = cl.emu.PollStats()
		for _, tn := range tenants {
			got := 0
			for _, w := range s.Accounts[tn.key].Windows {
				got += w
			}
			if got < n {
				return fmt.Errorf("account of tenant %s polled in %d windows; want %d", tn.ns, got, n)
			}
		}
		return nil
	})
	return s
}

// callers are the replicas that called the emulator for tn's account.
func callers(s pollstats.Stats, tn *tenant) []string {
	var out []string
	for c, n := range s.Accounts[tn.key].Calls {
		if n > 0 {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// vmWatch lists the VirtualMachines of some Namespaces every 200 ms and
// records every time one that was there is gone or a count drops.
type vmWatch struct {
	stopCh  chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	samples int
	errs    []string
}

// watchVMs starts a vmWatch of the tenants' Namespaces, from what they
// hold now.
func watchVMs(t *testing.T, c client.Client, tenants ...*tenant) *vmWatch {
	t.Helper()
	w := &vmWatch{stopCh: make(chan struct{}), done: make(chan struct{})}
	seen := map[string]map[string]bool{} // namespace -> UIDs
	list := func(ns string) (map[string]bool, error) {
		var l cloudv1alpha1.VirtualMachineList
		if err := c.List(context.WithoutCancel(t.Context()), &l, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		out := map[string]bool{}
		for _, vm := range l.Items {
			out[string(vm.UID)] = true
		}
		return out, nil
	}
	for _, tn := range tenants {
		uids, err := list(tn.ns)
		if err != nil {
			t.Fatal(err)
		}
		seen[tn.ns] = uids
	}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.stopCh:
				return
			case <-tick.C:
			}
			for ns, before := range seen {
				now, err := list(ns)
				if err != nil {
					continue // a slow API server is not a deleted VM
				}
				w.mu.Lock()
				for uid := range before {
					if !now[uid] {
						w.errs = append(w.errs, fmt.Sprintf("%s: VirtualMachine %s deleted (%d VMs, were %d)", ns, uid, len(now), len(before)))
					}
				}
				w.mu.Unlock()
				seen[ns] = now
			}
			w.mu.Lock()
			w.samples++
			w.mu.Unlock()
		}
	}()
	t.Cleanup(w.stop)
	return w
}

func (w *vmWatch) stop() {
	select {
	case <-w.stopCh:
	default:
		close(w.stopCh)
	}
	<-w.done
}

// check stops the watch and fails the test if a VM went away.
func (w *vmWatch) check(t *testing.T) {
	t.Helper()
	w.stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range w.errs {
		t.Error(e)
	}
	t.Logf("VirtualMachines listed %d times every 200 ms: none went away", w.samples)
}

// waitExclusive waits until tn's account has the condition
// TenantExclusive with status and reason, its message containing every
// word of says.
func waitExclusive(t *testing.T, c client.Client, tn *tenant, status metav1.ConditionStatus, reason string, says ...string) metav1.Condition {
	t.Helper()
	var got metav1.Condition
	framework.Eventually(t, timeout, func() error {
		a := &cloudv1alpha1.CloudProviderAccount{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: tn.ns, Name: accountName}, a); err != nil {
			return err
		}
		cond := meta.FindStatusCondition(a.Status.Conditions, cloudv1alpha1.AccountConditionTenantExclusive)
		if cond == nil || cond.Status != status || cond.Reason != reason {
			return fmt.Errorf("tenant %s: TenantExclusive is %+v; want %s/%s", tn.ns, cond, status, reason)
		}
		for _, s := range says {
			if !strings.Contains(cond.Message, s) {
				return fmt.Errorf("tenant %s: TenantExclusive message %q does not name %q", tn.ns, cond.Message, s)
			}
		}
		got = *cond
		return nil
	})
	return got
}

// stored maps the UID of every VirtualMachine and NetworkInterface of ns
// to its resourceVersion.
func stored(t *testing.T, c client.Client, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var vms cloudv1alpha1.VirtualMachineList
	if err := c.List(t.Context(), &vms, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, o := range vms.Items {
		out["VirtualMachine "+o.Name+" "+string(o.UID)] = o.ResourceVersion
	}
	var nics cloudv1alpha1.NetworkInterfaceList
	if err := c.List(t.Context(), &nics, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, o := range nics.Items {
		out["NetworkInterface "+o.Name+" "+string(o.UID)] = o.ResourceVersion
	}
	return out
}
