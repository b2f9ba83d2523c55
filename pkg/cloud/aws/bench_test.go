package aws_test

import (
	"fmt"
	"testing"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// BenchmarkInventory10kVMs reads 10k instances in 10 VPCs through the real
// SDK from the emulator, and reports the API calls one inventory costs. The
// latency variants add a per-call delay, as a real endpoint has.
func BenchmarkInventory10kVMs(b *testing.B) {
	for _, latency := range []time.Duration{0, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("latency=%s", latency), func(b *testing.B) {
			f := newFixture(b, 10)
			f.addVMs(b, 10000, awsemu.InstanceSpec{Tags: map[string]string{"env": "prod", "team": "web"}})
			f.emu.SetLatency(latency)
			p := f.provider(b, nil)
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
		})
	}
}

// BenchmarkSyncSecurityGroups1kVMs realises 100 managed groups of 20
// ingress and 5 egress rules (some referring to other groups) on 1000 VMs,
// two groups each, from cold, then resyncs with nothing changed; it reports
// the writes of each (the resync target is 0).
func BenchmarkSyncSecurityGroups1kVMs(b *testing.B) {
	f := newFixture(b, 1)
	vms := f.addVMs(b, 1000, awsemu.InstanceSpec{})
	spec := provider.SecurityGroupSpec{VPCID: f.vpcs[0], Prefix: "antreaplus-", Attachments: map[string][]string{}}
	for g := range 100 {
		sg := provider.SecurityGroup{Name: fmt.Sprintf("antreaplus-g%03d", g)}
		for r := range 20 {
			rule := provider.Rule{Protocol: "tcp", FromPort: int32(8000 + r), ToPort: int32(8000 + r), CIDR: fmt.Sprintf("10.%d.%d.0/24", g, r)}
			if r%5 == 0 {
				rule.CIDR, rule.Group = "", fmt.Sprintf("antreaplus-g%03d", (g+1)%100)
			}
			sg.Ingress = append(sg.Ingress, rule)
		}
		for r := range 5 {
			sg.Egress = append(sg.Egress, provider.Rule{Protocol: "udp", FromPort: 53, ToPort: 53, CIDR: fmt.Sprintf("10.200.%d.0/24", r)})
		}
		spec.Groups = append(spec.Groups, sg)
	}
	for i, vm := range vms {
		spec.Attachments[vm.NICs[0]] = []string{fmt.Sprintf("antreaplus-g%03d", i%100), fmt.Sprintf("antreaplus-g%03d", (i+7)%100)}
	}
	for b.Loop() {
		b.StopTimer()
		// A fresh VPC state each round: delete what the last round made.
		if _, err := f.provider(b, nil).SyncSecurityGroups(b.Context(), region, provider.SecurityGroupSpec{VPCID: f.vpcs[0], Prefix: "antreaplus-"}); err != nil {
			b.Fatal(err)
		}
		p := f.provider(b, nil)
		b.StartTimer()
		start := time.Now()
		cold, err := p.SyncSecurityGroups(b.Context(), region, spec)
		if err != nil || len(cold.Unrealized) > 0 {
			b.Fatalf("%v %+v", err, cold.Unrealized)
		}
		coldTime := time.Since(start)
		f.emu.ResetCalls()
		start = time.Now()
		resync, err := p.SyncSecurityGroups(b.Context(), region, spec)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(cold.Writes), "cold-writes")
		b.ReportMetric(float64(coldTime.Milliseconds()), "cold-ms")
		b.ReportMetric(float64(resync.Writes), "resync-writes")
		b.ReportMetric(float64(f.emu.TotalCalls()), "resync-calls")
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "resync-ms")
	}
}
