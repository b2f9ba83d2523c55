package sandbox

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestNodePlaces: clusters pair up in regions, each cluster a zone of its own.
func TestNodePlaces(t *testing.T) {
	for _, tc := range []struct {
		index        int
		region, zone string
	}{
		{1, "sandbox", "member-1"},
		{2, "sandbox", "member-2"},
		{3, "sandbox-2", "member-3"},
		{4, "sandbox-2", "member-4"},
		{5, "sandbox-3", "member-5"},
	} {
		p := ClusterPlan{Name: fmt.Sprintf("member-%d", tc.index), Index: tc.index}
		for i := 1; i <= 2; i++ {
			l := simulatedNode(p, i).Labels
			if l[corev1.LabelTopologyRegion] != tc.region || l[corev1.LabelTopologyZone] != tc.zone {
				t.Errorf("%s node %d: region %q zone %q, want %q %q", p.Name, i, l[corev1.LabelTopologyRegion], l[corev1.LabelTopologyZone], tc.region, tc.zone)
			}
		}
	}
}
