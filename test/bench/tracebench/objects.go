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

// traceObjects runs member-2's policy controller (from $PATH or bin/),
// waits until it answers a Trace, then times n Trace objects between VMs
// of member-2 from creation to Completed: the computed verdict decided from
// the rules the controller serves (compiled once, kept up to date), not
// compiled again. Each verdict is checked against the command's own
// computation of the same flow.
func traceObjects(ctx context.Context, sb *sandbox.Sandbox, clusters []membership.Cluster, c client.WithWatch, perMember, n int) ([]float64, error) {
	bin, err := sb.FindBinary(ctx, "policy-controller")
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	dir, err := os.MkdirTemp("", "tracebench-controller-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	var log bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--kubeconfig", sb.KubeconfigPath(), "--context", "member-2",
		"--listen-address", addr, "--cert-dir", filepath.Join(dir, "certs"), "--tls-san", "127.0.0.1")
	cmd.Stdout, cmd.Stderr = &log, &log
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	rng := rand.New(rand.NewPCG(3, uint64(perMember)))
	ask := func(i, k int, timeout time.Duration) (*policyv1alpha1.Trace, time.Duration, error) {
		port := int32(8000 + k%ports)
		t := &policyv1alpha1.Trace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-", Namespace: namespace},
			Spec: policyv1alpha1.TraceSpec{Source: policyv1alpha1.TraceEnd{ExternalEntity: vmName(2, i)},
				Destination: policyv1alpha1.TraceEnd{ExternalEntity: vmName(2, k)}, Protocol: "TCP", Port: port}}
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
	// The controller starts by compiling the whole member.
	for {
		got, _, err := ask(0, 1, 30*time.Second)
		if err == nil && got.Status.Phase == policyv1alpha1.TraceCompleted {
			break
		}
		if cmd.ProcessState != nil || time.Since(started) > 10*time.Minute {
			return nil, fmt.Errorf("the policy controller answered no Trace within 10 min (last: %s %+v):\n%s", fmt.Sprint(err), got, tail(log.String()))
		}
	}
	logf("member-2's policy controller answers Traces %s after its start", time.Since(started).Round(time.Second))
	world := gather.Read(ctx, clusters, time.Minute)
	var times []float64
	for range n {
		i, k := rng.IntN(perMember), rng.IntN(perMember)
		got, took, err := ask(i, k, 30*time.Second)
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
