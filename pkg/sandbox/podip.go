package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// ownPodIPs makes sure no other live Pod of the cluster has the IP of a
// Pod the sandbox plays: its network namespace's route would take the
// other's traffic (a DNS Service's queries once went to a federation
// manager). kwok stands in for the CNI, and its address pools are not
// always right: a restarted kwok controller forgets every address it gave
// out and gives each node's first addresses again. A Pod that shares its
// IP is given the highest address of its node's Pod CIDR that no live Pod
// holds, in its status, as a CNI would have: kwok sets a Pod's IP only
// while it has none. Pods not yet running are given another first, so
// that a running one keeps its address. pods are updated in place.
func (s *Sandbox) ownPodIPs(ctx context.Context, cs kubernetes.Interface, cluster string, pods map[string]*corev1.Pod) error {
	all, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing the cluster's Pods: %w", err)
	}
	var waiting, running []string
	for _, component := range slices.Sorted(maps.Keys(pods)) {
		if s.playing(cluster, component, pods[component]) {
			running = append(running, component)
		} else {
			waiting = append(waiting, component)
		}
	}
	taken := map[netip.Addr]bool{}
	for i := range all.Items {
		if a, err := netip.ParseAddr(all.Items[i].Status.PodIP); err == nil && live(&all.Items[i]) {
			taken[a] = true
		}
	}
	for _, component := range append(waiting, running...) {
		pod := pods[component]
		others := sharingIP(all.Items, pod)
		if len(others) == 0 {
			continue
		}
		shared := fmt.Sprintf("kwok gave Pod %s/%s the IP %s of %s as well", pod.Namespace, pod.Name, pod.Status.PodIP, strings.Join(others, ", "))
		node, err := cs.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("%s; reading its node for another: %w", shared, err)
		}
		cidr, err := netip.ParsePrefix(node.Spec.PodCIDR)
		if err != nil {
			return fmt.Errorf("%s, and its node %s has no Pod CIDR (%q) to give it another from", shared, node.Name, node.Spec.PodCIDR)
		}
		ip, err := freePodIP(cidr, taken)
		if err != nil {
			return fmt.Errorf("%s: %w", shared, err)
		}
		patch, err := json.Marshal(map[string]any{"status": map[string]any{
			"podIP": ip.String(), "podIPs": []map[string]string{{"ip": ip.String()}},
		}})
		if err != nil {
			return err
		}
		updated, err := cs.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
		if err != nil {
			return fmt.Errorf("%s; giving it %s: %w", shared, ip, err)
		}
		s.logf("%s: %s; gave it %s, free in its node's Pod CIDR %s", cluster, shared, ip, cidr)
		taken[ip] = true
		updated.DeepCopyInto(pod)
		for i := range all.Items {
			if all.Items[i].UID == pod.UID {
				all.Items[i] = *pod.DeepCopy()
			}
		}
	}
	return nil
}

// playing reports whether the sandbox already runs the component as this
// Pod.
func (s *Sandbox) playing(cluster, component string, pod *corev1.Pod) bool {
	var run podRun
	if raw, err := os.ReadFile(filepath.Join(s.podDir(cluster, component), "pod.json")); err == nil {
		_ = json.Unmarshal(raw, &run)
	}
	return run.UID == string(pod.UID) && s.componentProcess(cluster, component).pid() != 0
}

// live is a Pod that holds its IP: not on the host's network, not being
// deleted, not done.
func live(p *corev1.Pod) bool {
	return !p.Spec.HostNetwork && p.DeletionTimestamp == nil &&
		p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// sharingIP names ("namespace/name") the other live Pods that have pod's
// IP.
func sharingIP(pods []corev1.Pod, pod *corev1.Pod) []string {
	var out []string
	for i := range pods {
		p := &pods[i]
		if p.UID != pod.UID && p.Status.PodIP == pod.Status.PodIP && live(p) {
			out = append(out, p.Namespace+"/"+p.Name)
		}
	}
	return out
}

// freePodIP is the highest address of cidr that is not taken, its network
// and (IPv4) broadcast addresses left out: kwok gives a node's addresses
// from the lowest up. It looks at 65,536 addresses at most, far more than a
// node has Pods.
func freePodIP(cidr netip.Prefix, taken map[netip.Addr]bool) (netip.Addr, error) {
	cidr = cidr.Masked()
	last := lastAddr(cidr)
	a := last
	if a.Is4() && cidr.Bits() < 31 {
		a = a.Prev() // the broadcast address
	}
	for range 1 << 16 {
		if !cidr.Contains(a) || a == cidr.Addr() {
			break
		}
		if !taken[a] {
			return a, nil
		}
		a = a.Prev()
	}
	return netip.Addr{}, fmt.Errorf("no address of %s is free", cidr)
}

// lastAddr is the highest address of a prefix.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := range b {
		switch bit := i * 8; {
		case bit >= p.Bits():
			b[i] = 0xff
		case bit+8 > p.Bits():
			b[i] |= 0xff >> (p.Bits() - bit)
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
