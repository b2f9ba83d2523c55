package cachetrim

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Node keeps of a Node what the leader controllers read (packages
// serviceexport, serviceimport, dnsendpoints): its name, labels (the
// topology zone and region among them), deletion, whether it is
// schedulable, its addresses and its Ready condition, with the identity the
// cache needs (UID, resourceVersion). The rest (images, capacity,
// nodeInfo, annotations, the other conditions and heartbeat times) is most
// of a kubelet's Node and is never read: a Node with 40 images kept whole
// (but for managedFields) holds about 16 KB of heap in every supervisor's
// cache of every member, trimmed 1.9 KB (BenchmarkNode).
//
// Anything else passes unchanged (a tombstone of a deleted object is
// trimmed by the informer before it becomes one).
func Node(in any) (any, error) {
	n, ok := in.(*corev1.Node)
	if !ok {
		return in, nil
	}
	out := &corev1.Node{
		TypeMeta: n.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion, Generation: n.Generation,
			CreationTimestamp: n.CreationTimestamp, DeletionTimestamp: n.DeletionTimestamp, Labels: n.Labels,
		},
		Spec:   corev1.NodeSpec{Unschedulable: n.Spec.Unschedulable},
		Status: corev1.NodeStatus{Addresses: n.Status.Addresses},
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Status.Conditions = []corev1.NodeCondition{{Type: c.Type, Status: c.Status, Reason: c.Reason}}
			break
		}
	}
	return out, nil
}
