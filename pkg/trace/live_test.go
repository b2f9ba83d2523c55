package trace

import (
	"net/netip"
	"strings"
	"testing"

	"antreaplus.io/antreaplus/pkg/policyrules"
)

func TestPlanLive(t *testing.T) {
	src, dst := netip.MustParseAddr("198.18.255.10"), netip.MustParseAddr("198.19.0.17")
	egress := Step{Kind: StepEgress, Member: "member-1", Point: "shop/nic-web"}
	ingress := Step{Kind: StepIngress, Member: "member-2", Point: "shop/nic-db"}
	for _, tc := range []struct {
		name    string
		res     Result
		port    int32
		want    []string // member/namespace source-entity>destination-entity, in order
		wantErr string
	}{
		{name: "two members: the watcher first", res: Result{Source: src, Destination: dst, Steps: []Step{{Kind: StepLeg}, egress, ingress}},
			port: 5432, want: []string{"member-2/shop >nic-db", "member-1/shop nic-web>"}},
		{name: "one member and Namespace: one Trace with both ends",
			res:  Result{Source: src, Destination: dst, Steps: []Step{egress, {Kind: StepIngress, Member: "member-1", Point: "shop/nic-db"}}},
			port: 5432, want: []string{"member-1/shop nic-web>nic-db"}},
		{name: "dropped at the source: only its egress", res: Result{Source: src, Destination: dst, Steps: []Step{egress}},
			port: 80, want: []string{"member-1/shop nic-web>"}},
		{name: "a Pod's leg is not observed", res: Result{Source: src, Destination: dst, Steps: []Step{{Kind: StepEgress, Member: "member-1", Result: Undecided}, ingress}},
			port: 80, want: []string{"member-2/shop >nic-db"}},
		{name: "any port", res: Result{Source: src, Destination: dst, Steps: []Step{egress}}, wantErr: "give --port"},
		{name: "no addresses", res: Result{Steps: []Step{egress}}, port: 80, wantErr: "no addresses"},
		{name: "nothing to observe", res: Result{Source: src, Destination: dst, Steps: []Step{{Kind: StepLeg}}}, port: 80, wantErr: "nothing to observe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PlanLive(tc.res, policyrules.ProtocolTCP, tc.port, 10)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var brief []string
			for _, lt := range got {
				brief = append(brief, lt.Member+"/"+lt.Namespace+" "+lt.Spec.Source.ExternalEntity+">"+lt.Spec.Destination.ExternalEntity)
				if lt.Spec.Source.Address != src.String() || lt.Spec.Destination.Address != dst.String() || !lt.Spec.Live || lt.Spec.Port != tc.port {
					t.Errorf("spec %+v", lt.Spec)
				}
			}
			if len(brief) != len(tc.want) {
				t.Fatalf("planned %v, want %v", brief, tc.want)
			}
			for i := range brief {
				if brief[i] != tc.want[i] {
					t.Fatalf("planned %v, want %v", brief, tc.want)
				}
			}
		})
	}
}
