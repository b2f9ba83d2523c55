package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/policyrules"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/trace"
	"antreaplus.io/antreaplus/pkg/trace/gather"
)

// policyController runs a member's policy controller (from $PATH or bin/)
// until ctx ends or stop is called.
func policyController(ctx context.Context, sb *sandbox.Sandbox, member string) (stop func(), log *bytes.Buffer, exited func() bool, err error) {
	bin, err := sb.FindBinary(ctx, "policy-controller")
	if err != nil {
		return nil, nil, nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	dir, err := os.MkdirTemp("", "tracebench-controller-")
	if err != nil {
		return nil, nil, nil, err
	}
	log = &bytes.Buffer{}
	cmd := exec.CommandContext(ctx, bin, "--kubeconfig", sb.KubeconfigPath(), "--context", member,
		"--listen-address", addr, "--cert-dir", filepath.Join(dir, "certs"), "--tls-san", "127.0.0.1")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, nil, nil, err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	exited = func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	stop = func() { _ = cmd.Process.Kill(); <-done; _ = os.RemoveAll(dir) }
	return stop, log, exited, nil
}

// askTrace creates a Trace between VMs i and k of member m and waits for
// its end.
func askTrace(ctx context.Context, c client.WithWatch, m, i, k int, timeout time.Duration) (*policyv1alpha1.Trace, time.Duration, error) {
	port := int32(8000 + k%ports)
	t := &policyv1alpha1.Trace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-", Namespace: namespace},
		Spec: policyv1alpha1.TraceSpec{Source: policyv1alpha1.TraceEnd{ExternalEntity: vmName(m, i)},
			Destination: policyv1alpha1.TraceEnd{ExternalEntity: vmName(m, k)}, Protocol: "TCP", Port: port}}
	start := time.Now()
	if err := c.Create(ctx, t); err != nil {
		return nil, 0, err
	}
	defer func() { _ = c.Delete(context.Background(), t) }()
	w, err := c.Watch(ctx, &policyv1alpha1.TraceList{}, client.InNamespace(namespace), client.MatchingFields{"metadata.name": t.Name})
	if err != nil {
		return nil, 0, err
	}
	defer w.Stop()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil, 0, fmt.Errorf("the watch of Trace %s ended", t.Name)
			}
			if got, isTrace := ev.Object.(*policyv1alpha1.Trace); isTrace && got.Status.Phase != "" && got.Status.Phase != policyv1alpha1.TraceRunning {
				return got, time.Since(start), nil
			}
		case <-deadline:
			return nil, 0, fmt.Errorf("trace %s not finished within %s", t.Name, timeout)
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// answering runs member m's policy controller and waits until it answers a
// Trace: it starts by compiling the whole member.
func answering(ctx context.Context, sb *sandbox.Sandbox, c client.WithWatch, m int) (func(), error) {
	member := fmt.Sprintf("member-%d", m)
	started := time.Now()
	stop, log, exited, err := policyController(ctx, sb, member)
	if err != nil {
		return nil, err
	}
	for {
		got, _, err := askTrace(ctx, c, m, 0, 1, 30*time.Second)
		if err == nil && got.Status.Phase == policyv1alpha1.TraceCompleted {
			break
		}
		if exited() || time.Since(started) > 10*time.Minute || ctx.Err() != nil {
			stop()
			return nil, fmt.Errorf("%s's policy controller answered no Trace within 10 min (last: %s %+v):\n%s", member, fmt.Sprint(err), got, tail(log.String()))
		}
	}
	logf("%s's policy controller answers Traces %s after its start", member, time.Since(started).Round(time.Second))
	return stop, nil
}

// traceObjects times n Trace objects between VMs of member-2, whose
// policy controller answers, from creation to Completed: the computed
// verdict decided from the rules the controller serves (compiled once,
// kept up to date), not compiled again. Each verdict is checked against
// the command's own computation of the same flow.
func traceObjects(ctx context.Context, clusters []membership.Cluster, c client.WithWatch, perMember, n int) ([]float64, error) {
	rng := rand.New(rand.NewPCG(3, uint64(perMember)))
	world := gather.Read(ctx, clusters, time.Minute)
	var times []float64
	for range n {
		i, k := rng.IntN(perMember), rng.IntN(perMember)
		got, took, err := askTrace(ctx, c, 2, i, k, 30*time.Second)
		if err != nil {
			return nil, err
		}
		if got.Status.Phase != policyv1alpha1.TraceCompleted {
			return nil, fmt.Errorf("trace %s -> %s: %s: %s", vmName(2, i), vmName(2, k), got.Status.Phase, got.Status.Message)
		}
		want, err := computed(world, clusters[1].Name, i, k)
		if err != nil {
			return nil, err
		}
		if !strings.EqualFold(got.Status.Verdict, string(want)) {
			return nil, fmt.Errorf("trace %s -> %s: the Trace says %q, the command computes %q", vmName(2, i), vmName(2, k), got.Status.Verdict, want)
		}
		times = append(times, ms(took))
	}
	return times, nil
}

// computed is the command's verdict of a flow between VMs i and k of a
// member, from a world already read.
func computed(w *gather.World, member string, i, k int) (trace.Verdict, error) {
	src, _, err := w.Workload(gather.Spec{Kind: gather.KindVM, Member: member, Name: vmName(2, i)}, "", "")
	if err != nil {
		return "", err
	}
	dst, resolved, err := w.Workload(gather.Spec{Kind: gather.KindVM, Member: member, Name: vmName(2, k)}, "", member)
	if err != nil {
		return "", err
	}
	if err := w.Compile(&src, &dst); err != nil {
		return "", err
	}
	return trace.Compute(trace.Query{Source: src, Destination: dst, Protocol: policyrules.ProtocolTCP, Port: int32(8000 + k%ports),
		Resolved: resolved, Flat: w.Flat, Federated: w.Federated()}).Verdict, nil
}

func tail(s string) string {
	if len(s) > 3000 {
		s = "..." + s[len(s)-3000:]
	}
	return s
}
