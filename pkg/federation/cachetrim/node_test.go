package cachetrim_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"antreaplus.io/antreaplus/pkg/federation/cachetrim"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// kubeletNode is a Node as a kubelet keeps it (its fields and their sizes
// from a 1.34 node with 40 images), with managedFields.
func kubeletNode(i int, ready corev1.ConditionStatus, unschedulable bool) *corev1.Node {
	now := metav1.NewTime(time.Unix(1_800_000_000, 0))
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("worker-%03d", i), UID: "6c1e4f0e-3f7b-4c7e-9a51-3b1f2d0c9a%02d", ResourceVersion: "123456", CreationTimestamp: now,
			Labels: map[string]string{
				"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
				"kubernetes.io/hostname": fmt.Sprintf("worker-%03d", i), "kubernetes.io/os": "linux",
				"node.kubernetes.io/instance-type": "m5.xlarge", corev1.LabelTopologyRegion: "eu-west-1", corev1.LabelTopologyZone: fmt.Sprintf("eu-west-1%c", 'a'+i%3),
			},
			Annotations: map[string]string{
				"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true",
				"csi.volume.kubernetes.io/nodeid":    `{"ebs.csi.aws.com":"i-0123456789abcdef0"}`,
				"node.antrea.io/transport-addresses": "10.0.1.17", "alpha.kubernetes.io/provided-node-ip": "10.0.1.17",
			},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:node.alpha.kubernetes.io/ttl":{}},"f:labels":{".":{},"f:kubernetes.io/arch":{},"f:kubernetes.io/hostname":{},"f:kubernetes.io/os":{}}},"f:status":{"f:conditions":{"k:{\"type\":\"DiskPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"MemoryPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"PIDPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"Ready\"}":{"f:lastHeartbeatTime":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{}}},"f:images":{},"f:nodeInfo":{"f:bootID":{}}}}`)}},
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:podCIDR":{},"f:podCIDRs":{".":{},"v:\"10.244.3.0/24\"":{}}}}`)}},
			},
		},
		Spec: corev1.NodeSpec{PodCIDR: "10.244.3.0/24", PodCIDRs: []string{"10.244.3.0/24"}, ProviderID: "aws:///eu-west-1a/i-0123456789abcdef0",
			Unschedulable: unschedulable, Taints: []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.1.%d", i%250+1)}, {Type: corev1.NodeExternalIP, Address: fmt.Sprintf("203.0.113.%d", i%250+1)},
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("fd00:10::%x", i+1)}, {Type: corev1.NodeHostName, Address: fmt.Sprintf("ip-10-0-1-%d.eu-west-1.compute.internal", i%250+1)},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{MachineID: "ec2a1b2c3d4e5f60718293a4b5c6d7e8", SystemUUID: "ec2a1b2c-3d4e-5f60-7182-93a4b5c6d7e8", BootID: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
				KernelVersion: "6.1.0-27-cloud-amd64", OSImage: "Debian GNU/Linux 12 (bookworm)", ContainerRuntimeVersion: "containerd://1.7.24",
				KubeletVersion: "v1.34.2", OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage, "hugepages-1Gi", "hugepages-2Mi", "attachable-volumes-aws-ebs"} {
		if n.Status.Capacity == nil {
			n.Status.Capacity, n.Status.Allocatable = corev1.ResourceList{}, corev1.ResourceList{}
		}
		n.Status.Capacity[r], n.Status.Allocatable[r] = resource.MustParse("16"), resource.MustParse("15")
	}
	for _, c := range []struct {
		t      corev1.NodeConditionType
		status corev1.ConditionStatus
		reason string
	}{{corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory"}, {corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure"},
		{corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID"}, {corev1.NodeReady, ready, "KubeletReady"}, {corev1.NodeNetworkUnavailable, corev1.ConditionFalse, "RouteCreated"}} {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: c.t, Status: c.status, Reason: c.reason,
			Message: "kubelet reports " + string(c.t) + " as " + string(c.status), LastHeartbeatTime: now, LastTransitionTime: now})
	}
	for j := range 40 {
		repo := fmt.Sprintf("registry.example.com/team-%d/service-%d", j%7, j)
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{
			Names:     []string{repo + "@sha256:" + fmt.Sprintf("%064x", j*7919+i), repo + fmt.Sprintf(":v1.%d.%d", j, i%10)},
			SizeBytes: int64(50_000_000 + j*1_000_000)})
	}
	return n
}

func TestNodeKeepsWhatIsRead(t *testing.T) {
	full := kubeletNode(7, corev1.ConditionTrue, true)
	del := metav1.NewTime(time.Unix(1_800_000_100, 0))
	full.DeletionTimestamp = &del
	got, err := cachetrim.Node(full.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	n := got.(*corev1.Node)
	want := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: full.Name, UID: full.UID, ResourceVersion: full.ResourceVersion, CreationTimestamp: full.CreationTimestamp,
			DeletionTimestamp: full.DeletionTimestamp, Labels: full.Labels},
		Spec:   corev1.NodeSpec{Unschedulable: true},
		Status: corev1.NodeStatus{Addresses: full.Status.Addresses, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}}},
	}
	if !reflect.DeepEqual(n, want) {
		t.Errorf("trimmed node:\n%+v\nwant\n%+v", n, want)
	}

	// A node without a Ready condition keeps none.
	bare := kubeletNode(1, corev1.ConditionTrue, false)
	bare.Status.Conditions = bare.Status.Conditions[:3]
	got, _ = cachetrim.Node(bare)
	if c := got.(*corev1.Node).Status.Conditions; len(c) != 0 {
		t.Errorf("conditions %v, want none (no Ready condition)", c)
	}

	// Other objects pass as they are.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{"a": "b"}}}
	if got, _ := cachetrim.Node(svc); got != any(svc) {
		t.Errorf("a Service came out as %v, want it unchanged", got)
	}
}

// TestReadersAgree: what every reader of the members' nodes derives from a
// node is the same whether the cache kept it whole or trimmed.
func TestReadersAgree(t *testing.T) {
	var full, trimmed []corev1.Node
	for i, c := range []struct {
		ready         corev1.ConditionStatus
		unschedulable bool
	}{{corev1.ConditionTrue, false}, {corev1.ConditionFalse, false}, {corev1.ConditionTrue, true}, {corev1.ConditionUnknown, false}, {corev1.ConditionTrue, false}} {
		n := kubeletNode(i, c.ready, c.unschedulable)
		if i == 4 {
			del := metav1.NewTime(time.Unix(1_800_000_100, 0))
			n.DeletionTimestamp = &del
		}
		full = append(full, *n)
		got, err := cachetrim.Node(n.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		trimmed = append(trimmed, *got.(*corev1.Node))
	}
	nodePort := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
		Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: 30080}}}}
	for name, read := range map[string]func([]corev1.Node) any{
		"ChooseAddresses": func(n []corev1.Node) any { return serviceexport.ChooseAddresses(nodePort, false, nil, n) },
		"Region":          func(n []corev1.Node) any { return serviceexport.Region(n) },
		"Zones":           func(n []corev1.Node) any { return serviceexport.Zones(n) },
		"NodeReady": func(n []corev1.Node) any {
			var out []bool
			for i := range n {
				out = append(out, serviceexport.NodeReady(&n[i]))
			}
			return out
		},
	} {
		if a, b := read(full), read(trimmed); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: whole nodes give %+v, trimmed ones %+v", name, a, b)
		}
	}
	if a := serviceexport.ChooseAddresses(nodePort, false, nil, full); len(a.Endpoints) == 0 {
		t.Fatalf("no endpoint chosen from the nodes (%s): the comparison above says nothing", a.Note)
	}
}

// BenchmarkNode holds 1,000 kubelet Nodes as a member's cache would, decoded
// from JSON: whole but for managedFields (what the caches kept before) and
// trimmed. It reports the heap each kept Node costs, and the ratio.
func BenchmarkNode(b *testing.B) {
	const nodes = 1000
	raw := make([][]byte, nodes)
	for i := range raw {
		var err error
		if raw[i], err = json.Marshal(kubeletNode(i, corev1.ConditionTrue, false)); err != nil {
			b.Fatal(err)
		}
	}
	held := func(transform func(any) (any, error)) float64 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		kept := make([]any, nodes)
		for i := range raw {
			n := &corev1.Node{}
			if err := json.Unmarshal(raw[i], n); err != nil {
				b.Fatal(err)
			}
			var err error
			if kept[i], err = transform(n); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(kept)
		return (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / nodes
	}
	var whole, trimmed float64
	for b.Loop() {
		whole = held(cache.TransformStripManagedFields())
		trimmed = held(cachetrim.Node)
	}
	b.ReportMetric(whole, "B/node-whole")
	b.ReportMetric(trimmed, "B/node-trimmed")
	b.ReportMetric(whole/trimmed, "x-smaller")
}
