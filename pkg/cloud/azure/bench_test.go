package azure_test

import (
	"testing"

	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

// BenchmarkInventory10kVMs reads 10k VMs (with their NICs) in 10 VNets
// through the real SDK from the emulator over TLS, and reports the ARM
// calls one inventory costs (the one-time token and location calls
// excluded).
func BenchmarkInventory10kVMs(b *testing.B) {
	f := newFixture(b, 10, azureemu.Options{})
	f.addVMs(b, 10000, azureemu.VMSpec{Tags: map[string]string{"env": "prod"}})
	p := f.provider(b, nil)
	if _, err := p.Inventory(b.Context(), region); err != nil { // token, locations
		b.Fatal(err)
	}
	f.emu.ResetCalls()
	b.ResetTimer()
	for b.Loop() {
		snap, err := p.Inventory(b.Context(), region)
		if err != nil {
			b.Fatal(err)
		}
		if len(snap.VMs) != 10000 {
			b.Fatalf("%d VMs", len(snap.VMs))
		}
	}
	b.ReportMetric(float64(f.emu.TotalCalls())/float64(b.N), "api-calls/op")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}
