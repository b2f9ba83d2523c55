package sandbox

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// kwokNodeAnnotation marks the nodes kwokctl's kwok controller simulates.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// ensureNodes creates the cluster's simulated nodes that do not exist yet;
// a light member's are Ready from their creation (no kwok controller runs
// to make them so).
func ensureNodes(ctx context.Context, cfg *rest.Config, p ClusterPlan, n int, ready bool) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		node := simulatedNode(p, i)
		if ready {
			node.Status.Conditions = []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "SandboxLightMember",
				Message:            "written Ready by the sandbox: a light member runs no kwok controller",
				LastHeartbeatTime:  metav1.Now(),
				LastTransitionTime: metav1.Now(),
			}}
		}
		_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", node.Name, err)
		}
	}
	return nil
}

// region is the topology.kubernetes.io/region of a cluster's nodes: the
// clusters pair up, 1 and 2 in region "sandbox" (every cluster's region
// before there were more), 3 and 4 in "sandbox-2", and so on, so that a
// sandbox of three members has region and zone names worth asking for. Each
// cluster is one zone, named after it.
func region(p ClusterPlan) string {
	if k := (p.Index + 1) / 2; k > 1 {
		return fmt.Sprintf("sandbox-%d", k)
	}
	return "sandbox"
}

// simulatedNode is the i-th kwok node of a cluster.
func simulatedNode(p ClusterPlan, i int) *corev1.Node {
	name := fmt.Sprintf("%s-node-%d", p.Name, i)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{kwokNodeAnnotation: "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname":   name,
				"kubernetes.io/os":         "linux",
				"kubernetes.io/arch":       "amd64",
				"type":                     "kwok",
				corev1.LabelTopologyRegion: region(p),
				corev1.LabelTopologyZone:   p.Name,
			},
		},
		Status: corev1.NodeStatus{
			// kwok keeps the addresses it finds; NodePort exports need one.
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("172.31.%d.%d", p.Index, i)},
				{Type: corev1.NodeHostName, Address: name},
			},
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("32"),
				corev1.ResourceMemory: resource.MustParse("256Gi"),
				corev1.ResourcePods:   resource.MustParse("110"),
			},
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("32"),
				corev1.ResourceMemory: resource.MustParse("256Gi"),
				corev1.ResourcePods:   resource.MustParse("110"),
			},
		},
	}
}
