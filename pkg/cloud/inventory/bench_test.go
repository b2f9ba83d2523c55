package inventory

import (
	"testing"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// BenchmarkDesiredAndDiff10kVMs maps a 10k-VM snapshot to objects and diffs
// it: from cold (every object created) and on a poll where nothing changed
// (target: zero writes).
func BenchmarkDesiredAndDiff10kVMs(b *testing.B) {
	snap := fleet("us-east-1", 10000)
	sel := selector([]cloudv1alpha1.VirtualMachineMatch{{VMMatch: &cloudv1alpha1.EntityMatch{Tags: map[string]string{"env": "prod"}}}})
	stored := withOwners(asStored(Desired(input(sel, snap))))
	for _, bc := range []struct {
		name     string
		existing Objects
	}{{"cold", Objects{}}, {"no-change", stored}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			writes := 0
			for b.Loop() {
				writes = Diff(Desired(input(sel, snap)), bc.existing, nil).Writes()
			}
			b.ReportMetric(float64(writes), "writes")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
		})
	}
}
