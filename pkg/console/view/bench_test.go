package view

import (
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkServicesOf: the services view of 10 members holding 1,000
// federated Services (each exported by one member, imported in all ten),
// and its JSON: what the console computes after each change.
func BenchmarkServicesOf(b *testing.B) {
	var members []*Member
	for i := range 10 {
		members = append(members, member(fmt.Sprintf("ctx-%d", i), fmt.Sprintf("m%d", i), false, "eu", fmt.Sprintf("eu-%d", i)))
	}
	for s := range 1000 {
		name := fmt.Sprintf("svc-%04d", s)
		exported(members[s%10], "bench", name, corev1.ServiceTypeLoadBalancer, fmt.Sprintf("198.18.%d.%d", s/250, s%250+1))
		for _, m := range members {
			imported(m, "bench", name, fmt.Sprintf("m%d", s%10))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		raw, err := json.Marshal(ServicesOf(members, "cluster.local", t0))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(raw))/1e6, "MB")
	}
}
