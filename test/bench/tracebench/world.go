package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// The population: every member holds its share of the entities and
// policies in one Namespace. Entity i of member m is VM vm-m-i at
// 10.m.(i/250).(i%250+1), labelled app=a-(i%apps) and tier=t-(i%tiers);
// policy j of member m is applied to app=a-(j%apps), allows TCP
// 8000+j%ports from tier=t-(j%tiers) and drops the rest of that port from
// everywhere: the kind of policy set a large estate holds, each VM
// selected by several policies and each rule's peers by thousands of VMs.
const (
	namespace = "trace-bench"
	apps      = 500
	tiers     = 20
	ports     = 100
	nameTag   = "tag.cloud.antreaplus.io/Name"
)

func vmName(member, i int) string { return fmt.Sprintf("vm-%d-%d", member, i) }

func entity(member, i int) *antreav1alpha2.ExternalEntity {
	name := vmName(member, i)
	return &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{
			cloudv1alpha1.LabelEntityKind: cloudv1alpha1.EntityKindVirtualMachine, nameTag: name,
			"app": fmt.Sprintf("a-%d", i%apps), "tier": fmt.Sprintf("t-%d", i%tiers),
		}},
		Spec: antreav1alpha2.ExternalEntitySpec{
			Endpoints:    []antreav1alpha2.Endpoint{{IP: fmt.Sprintf("10.%d.%d.%d", member, i/250, i%250+1)}},
			ExternalNode: name,
		},
	}
}

func policy(member, j int) *antreav1beta1.NetworkPolicy {
	tcp := corev1.ProtocolTCP
	port := intstr.FromInt32(int32(8000 + j%ports))
	allow, drop := antreav1beta1.RuleActionAllow, antreav1beta1.RuleActionDrop
	sel := func(k, v string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
	}
	return &antreav1beta1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("np-%d-%d", member, j), Namespace: namespace},
		Spec: antreav1beta1.NetworkPolicySpec{
			Tier: "application", Priority: float64(1 + j%100),
			AppliedTo: []antreav1beta1.AppliedTo{{ExternalEntitySelector: sel("app", fmt.Sprintf("a-%d", j%apps))}},
			Ingress: []antreav1beta1.Rule{
				{Action: &allow, Name: "from-tier", Ports: []antreav1beta1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}},
					From: []antreav1beta1.NetworkPolicyPeer{{ExternalEntitySelector: sel("tier", fmt.Sprintf("t-%d", j%tiers))}}},
				{Action: &drop, Name: "rest", Ports: []antreav1beta1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}},
					From: []antreav1beta1.NetworkPolicyPeer{{IPBlock: &antreav1beta1.IPBlock{CIDR: "0.0.0.0/0"}}}},
			},
		},
	}
}

// populate creates, in every member, entities [from, to) and policies
// [pfrom, pto) of its share, with workers writing at once.
func populate(ctx context.Context, clients []client.Client, from, to, pfrom, pto int) error {
	type item struct {
		c   client.Client
		obj client.Object
	}
	work := make(chan item)
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range 48 {
		wg.Go(func() {
			for it := range work {
				if err := it.c.Create(ctx, it.obj); err != nil && !apierrors.IsAlreadyExists(err) {
					err = fmt.Errorf("creating %s: %w", it.obj.GetName(), err)
					failed.CompareAndSwap(nil, &err)
				}
			}
		})
	}
	var items []item
	for _, c := range clients {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
			close(work)
			wg.Wait()
			return err
		}
	}
	for i := from; i < to; i++ {
		for m, c := range clients {
			items = append(items, item{c, entity(m+1, i)})
		}
	}
	for j := pfrom; j < pto; j++ {
		for m, c := range clients {
			items = append(items, item{c, policy(m+1, j)})
		}
	}
send:
	for _, it := range items {
		select {
		case work <- it:
		case <-ctx.Done():
			break send
		}
	}
	close(work)
	wg.Wait()
	if err := failed.Load(); err != nil {
		return *err
	}
	return ctx.Err()
}
