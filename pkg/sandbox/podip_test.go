package sandbox

import (
	"net/netip"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestSharingIP(t *testing.T) {
	pod := func(name, ip string, mutate ...func(*corev1.Pod)) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)},
			Status: corev1.PodStatus{PodIP: ip, Phase: corev1.PodRunning}}
		for _, m := range mutate {
			m(&p)
		}
		return p
	}
	me := pod("coredns", "10.101.1.0")
	for _, tc := range []struct {
		name   string
		others []corev1.Pod
		want   []string
	}{
		{name: "alone", others: nil},
		{name: "another IP", others: []corev1.Pod{pod("manager", "10.101.1.1")}},
		{name: "the same IP", others: []corev1.Pod{pod("manager", "10.101.1.0"), pod("agent", "10.101.1.0")}, want: []string{"ns/manager", "ns/agent"}},
		{name: "on the host's network", others: []corev1.Pod{pod("agent", "10.101.1.0", func(p *corev1.Pod) { p.Spec.HostNetwork = true })}},
		{name: "being deleted", others: []corev1.Pod{pod("old", "10.101.1.0", func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{} })}},
		{name: "done", others: []corev1.Pod{pod("job", "10.101.1.0", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sharingIP(append([]corev1.Pod{me}, tc.others...), &me)
			if !slices.Equal(got, tc.want) {
				t.Errorf("sharingIP = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFreePodIP(t *testing.T) {
	addrs := func(ss ...string) map[netip.Addr]bool {
		m := map[netip.Addr]bool{}
		for _, s := range ss {
			m[netip.MustParseAddr(s)] = true
		}
		return m
	}
	for _, tc := range []struct {
		cidr, want string
		taken      map[netip.Addr]bool
	}{
		{cidr: "10.101.1.0/24", want: "10.101.1.254"},
		{cidr: "10.101.1.7/24", want: "10.101.1.254"},
		{cidr: "10.101.1.0/24", taken: addrs("10.101.1.254", "10.101.1.253"), want: "10.101.1.252"},
		{cidr: "10.101.0.0/16", want: "10.101.255.254"},
		{cidr: "10.101.1.0/30", taken: addrs("10.101.1.2"), want: "10.101.1.1"},
		{cidr: "10.101.1.0/30", taken: addrs("10.101.1.1", "10.101.1.2")},
		{cidr: "10.101.1.0/31", want: "10.101.1.1"},
		{cidr: "10.101.1.0/32"},
		{cidr: "fd00:10:65::/120", want: "fd00:10:65::ff"},
		{cidr: "fd00:10:65::/64", taken: addrs("fd00:10:65::ffff:ffff:ffff:ffff"), want: "fd00:10:65:0:ffff:ffff:ffff:fffe"},
	} {
		got, err := freePodIP(netip.MustParsePrefix(tc.cidr), tc.taken)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s (taken %v): %s, want none free", tc.cidr, tc.taken, got)
		case tc.want != "" && (err != nil || got.String() != tc.want):
			t.Errorf("%s (taken %v): %s, %v; want %s", tc.cidr, tc.taken, got, err, tc.want)
		}
	}
}
