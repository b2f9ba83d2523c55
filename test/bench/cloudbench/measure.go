package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/test/bench/procstat"
)

// measure runs one cold import into a fresh namespace and steady polls.
func (e *env) measure(ctx context.Context, s settings, run int, r *results) error {
	bare, err := e.bareRead(ctx)
	if err != nil {
		return err
	}
	floor, err := e.floor(ctx, min(s.vms, 3000), run)
	if err != nil {
		return err
	}
	ns := fmt.Sprintf("cloudbench-%d", run)
	if err := e.account(ctx, ns); err != nil {
		return err
	}
	ctl, err := e.startController(s, run)
	if err != nil {
		return err
	}
	defer ctl.stop()
	// Without a selector the account is polled once, for its credentials;
	// that is not part of the import.
	if err := e.waitPolled(ctx, ns); err != nil {
		return err
	}
	e.emu.ResetCalls()
	w0, err := e.serverWrites(ctx)
	if err != nil {
		return err
	}
	cpu0, err := procstat.CPUSeconds(ctl.cmd.Process.Pid)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := e.c.Create(ctx, selector(ns)); err != nil {
		return err
	}
	tVMs, tAll, calls, err := e.waitImport(ctx, ns, s.vms, start)
	if err != nil {
		return err
	}
	cpu1, err := procstat.CPUSeconds(ctl.cmd.Process.Pid)
	if err != nil {
		return err
	}
	r.importCPU = append(r.importCPU, cpu1-cpu0)
	w1, err := e.serverWrites(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "run %d: VMs and NICs in %.1fs with %d cloud calls, ExternalEntities in %.1fs, %d API writes\n",
		run+1, tVMs, calls, tAll, int(w1-w0))
	steadyServer, steadyCtl, err := e.steady(ctx, s, ctl)
	if err != nil {
		return err
	}
	r.baseline = append(r.baseline, bare)
	r.floor = append(r.floor, floor)
	r.importRate = append(r.importRate, (w1-w0)/tAll)
	r.importVMs, r.importAll = append(r.importVMs, tVMs), append(r.importAll, tAll)
	r.importCalls = append(r.importCalls, float64(calls))
	r.writesPerObject = append(r.writesPerObject, (w1-w0)/float64(3*s.vms))
	r.steadyServer, r.steadyController = append(r.steadyServer, steadyServer), append(r.steadyController, steadyCtl)
	r.rss = append(r.rss, procstat.RSSMiB(ctl.cmd.Process.Pid))
	heap, err := ctl.metric("go_memstats_heap_inuse_bytes")
	r.heap = append(r.heap, heap/(1<<20))
	return err
}

// waitPolled waits until the account in ns says its inventory was polled.
func (e *env) waitPolled(ctx context.Context, ns string) error {
	acct := &cloudv1alpha1.CloudProviderAccount{}
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if err := e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aws"}, acct); err != nil {
			return err
		}
		if meta.IsStatusConditionTrue(acct.Status.Conditions, cloudv1alpha1.AccountConditionInventoryPolled) {
			return nil
		}
	}
	return fmt.Errorf("account %s/aws was not polled in 5 minutes: %+v", ns, acct.Status.Conditions)
}

func (e *env) account(ctx context.Context, ns string) error {
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "aws"}, StringData: map[string]string{"accessKeyID": keyID, "secretAccessKey": secretKey}},
		&cloudv1alpha1.CloudProviderAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "aws"},
			Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS, PollIntervalSeconds: ptr.To[int32](30),
				AWS: &cloudv1alpha1.AWSAccountConfig{Regions: []string{region}, Endpoint: e.emuURL,
					Credentials: cloudv1alpha1.AWSCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: "aws"}}}}},
	}
	for _, o := range objs {
		if err := e.c.Create(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

func selector(ns string) *cloudv1alpha1.CloudEntitySelector {
	return &cloudv1alpha1.CloudEntitySelector{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "aws"},
		Spec: cloudv1alpha1.CloudEntitySelectorSpec{AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "aws"},
			VirtualMachines: []cloudv1alpha1.VirtualMachineMatch{{VMMatch: &cloudv1alpha1.EntityMatch{Tags: map[string]string{"env": "prod"}}}}}}
}

// waitImport waits for n VMs and NICs, then n ExternalEntities, in ns; it
// returns both times from start and the cloud calls made by then.
func (e *env) waitImport(ctx context.Context, ns string, n int, start time.Time) (vms, all float64, calls int, err error) {
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
		nv, nn, ne := e.count(ctx, ns, &cloudv1alpha1.VirtualMachineList{}), e.count(ctx, ns, &cloudv1alpha1.NetworkInterfaceList{}), e.count(ctx, ns, &antreav1alpha2.ExternalEntityList{})
		if vms == 0 && nv == n && nn == n {
			vms, calls = time.Since(start).Seconds(), e.emu.TotalCalls()
		}
		if vms > 0 && ne == n {
			return vms, time.Since(start).Seconds(), calls, nil
		}
	}
	return 0, 0, 0, fmt.Errorf("import of %d VMs not done in 30 minutes", n)
}

// count is the number of objects of a list kind in ns, read cheaply: one
// item and the count of the rest.
func (e *env) count(ctx context.Context, ns string, l client.ObjectList) int {
	if err := e.c.List(ctx, l, client.InNamespace(ns), client.Limit(1)); err != nil {
		return -1
	}
	items := meta.LenList(l)
	if rest := l.(metav1.ListInterface).GetRemainingItemCount(); rest != nil {
		return items + int(*rest)
	}
	return items
}

// steady waits for the import to settle, then counts the writes of
// s.steadyPolls polls where nothing changed.
func (e *env) steady(ctx context.Context, s settings, ctl *controllerProc) (server, controller float64, err error) {
	if err := e.waitPolls(2, s.interval); err != nil {
		return 0, 0, err
	}
	w0, err := e.serverWrites(ctx)
	if err != nil {
		return 0, 0, err
	}
	c0, err := ctl.writes()
	if err != nil {
		return 0, 0, err
	}
	if err := e.waitPolls(s.steadyPolls+1, s.interval); err != nil {
		return 0, 0, err
	}
	w1, err := e.serverWrites(ctx)
	if err != nil {
		return 0, 0, err
	}
	c1, err := ctl.writes()
	return (w1 - w0) / float64(s.steadyPolls), (c1 - c0) / float64(s.steadyPolls), err
}

// waitPolls waits until n more polls have started (one DescribeVpcs each).
func (e *env) waitPolls(n int, interval time.Duration) error {
	target := e.emu.Calls("DescribeVpcs") + n
	// A poll of 10k VMs takes seconds of its own on top of the interval.
	deadline := time.Now().Add(time.Duration(n)*(interval+time.Minute) + 2*time.Minute)
	for e.emu.Calls("DescribeVpcs") < target {
		if time.Now().After(deadline) {
			return fmt.Errorf("%d polls did not happen", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// serverWrites is the API server's count of writes to the cloud and Antrea
// groups, from its own metrics.
func (e *env) serverWrites(ctx context.Context) (float64, error) {
	cs, err := kubernetes.NewForConfig(e.cfg)
	if err != nil {
		return 0, err
	}
	raw, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	return sumMetric(string(raw), "apiserver_request_total{", func(line string) bool {
		group := strings.Contains(line, `group="cloud.antreaplus.io"`) || strings.Contains(line, `group="crd.antrea.io"`)
		write := false
		for _, v := range []string{"POST", "PUT", "PATCH", "DELETE", "DELETECOLLECTION", "APPLY"} {
			write = write || strings.Contains(line, `verb="`+v+`"`)
		}
		return group && write
	}), nil
}

// writes is the controller's own count of its writes.
func (p *controllerProc) writes() (float64, error) {
	return p.metric("antreaplus_cloud_controller_api_writes_total")
}

// metric is the sum of a metric's series on the controller's endpoint.
func (p *controllerProc) metric(name string) (float64, error) {
	resp, err := http.Get("http://" + p.metricsAddr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	return sumMetric(string(raw), name, func(line string) bool {
		rest := line[len(name):]
		return strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, " ")
	}), nil
}

func sumMetric(text, prefix string, keep func(string) bool) float64 {
	var sum float64
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, prefix) || !keep(line) {
			continue
		}
		if v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
			sum += v
		}
	}
	return sum
}
