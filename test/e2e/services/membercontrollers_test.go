package services

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/test/framework"
)

// giveNodesAddresses plays the kubelet for the sandbox's simulated nodes,
// which kwok starts with a host name only: each node without an IP gets the
// InternalIP 172.31.<cluster>.<node>.
func giveNodesAddresses(c *framework.Clusters) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := scheme.New()
	if err != nil {
		return err
	}
	for ci, name := range c.Names {
		cfg, err := c.Sandbox.RESTConfig(name)
		if err != nil {
			return err
		}
		cl, err := client.New(cfg, client.Options{Scheme: s})
		if err != nil {
			return err
		}
		nodes := &corev1.NodeList{}
		if err := cl.List(ctx, nodes); err != nil {
			return fmt.Errorf("listing the nodes of %s: %w", name, err)
		}
		sort.Slice(nodes.Items, func(i, j int) bool { return nodes.Items[i].Name < nodes.Items[j].Name })
		for ni := range nodes.Items {
			n := &nodes.Items[ni]
			if hasIP(n) {
				continue
			}
			addr := corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("172.31.%d.%d", ci+1, ni+1)}
			// kwok writes the node's status too: re-read and retry on conflict.
			err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
				if err := cl.Get(ctx, client.ObjectKeyFromObject(n), n); err != nil {
					return err
				}
				n.Status.Addresses = append(n.Status.Addresses, addr)
				return cl.Status().Update(ctx, n)
			})
			if err != nil {
				return fmt.Errorf("giving node %s of %s an address: %w", n.Name, name, err)
			}
		}
	}
	return nil
}

func hasIP(n *corev1.Node) bool {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP || a.Type == corev1.NodeExternalIP {
			return true
		}
	}
	return false
}
