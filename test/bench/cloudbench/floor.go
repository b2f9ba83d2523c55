package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
)

// floorWorkers is the controller's default --write-workers.
const floorWorkers = 16

// floor is the second baseline: how many VirtualMachine objects like the
// imported ones the API server creates per second, floorWorkers at a time,
// with nothing else going on. The import cannot write faster.
func (e *env) floor(ctx context.Context, n, run int) (float64, error) {
	cfg := rest.CopyConfig(e.cfg)
	cfg.QPS, cfg.Burst = 5000, 5000
	sch, err := scheme.New()
	if err != nil {
		return 0, err
	}
	c, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		return 0, err
	}
	ns := fmt.Sprintf("cloudbench-floor-%d", run)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return 0, err
	}
	// Its deletion must be over before the import's writes are counted.
	defer gone(c, ns)
	var (
		wg    sync.WaitGroup
		next  = make(chan int)
		mu    sync.Mutex
		first error
	)
	start := time.Now()
	for range floorWorkers {
		wg.Go(func() {
			for i := range next {
				if err := c.Create(ctx, floorVM(ns, i)); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return float64(n) / time.Since(start).Seconds(), first
}

// floorVM is shaped like an imported VM: labels, tags and an owner.
func floorVM(ns string, i int) *cloudv1alpha1.VirtualMachine {
	id := fmt.Sprintf("i-%017x", i)
	tags := map[string]string{"Name": fmt.Sprintf("vm-%05d", i), "env": "prod", "team": "team-1", "Cost Center": "R&D / 42"}
	return &cloudv1alpha1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: ns, Labels: map[string]string{
			cloudv1alpha1.LabelAccountName: "aws", cloudv1alpha1.LabelAccountNamespace: ns, cloudv1alpha1.LabelSelectorName: "aws",
			"tag.cloud.antreaplus.io/env": "prod", "tag.cloud.antreaplus.io/team": "team-1", "tag.cloud.antreaplus.io/Name": tags["Name"],
			"tag.cloud.antreaplus.io/Cost_Center-1a2b3c4d": "R_D___42-5e6f7a8b"}},
		Spec: cloudv1alpha1.VirtualMachineSpec{Provider: cloudv1alpha1.ProviderAWS, AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "aws", Namespace: ns},
			CloudID: id, CloudName: tags["Name"], Region: region, Zone: region + "a", VPCID: "vpc-0000000000000001", InstanceType: "t3.micro",
			State: cloudv1alpha1.VMStateRunning, Tags: tags, NetworkInterfaces: []string{fmt.Sprintf("eni-%017x", i)},
			EnforcementMode: cloudv1alpha1.EnforcementAgentless},
	}
}

// gone deletes a namespace and waits until it is gone.
func gone(c client.Client, name string) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_ = c.Delete(ctx, ns)
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(ns), ns); apierrors.IsNotFound(err) {
			return
		}
	}
}
