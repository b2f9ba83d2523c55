package trace

import (
	"net/netip"
	"strings"
	"testing"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

func TestTraces(t *testing.T) {
	src, dst := netip.MustParseAddr("198.18.255.10"), netip.MustParseAddr("198.19.0.17")
	egress := Step{Kind: StepEgress, Member: "member-1", Point: "shop/nic-web"}
	ingress := Step{Kind: StepIngress, Member: "member-2", Point: "shop/nic-db"}
	for _, tc := range []struct {
		name    string
		res     Result
		port    int32
		want    []string // member/namespace source-entity>destination-entity, in order
		live    bool
		wantErr string
	}{
		{name: "two members: the watcher first", res: Result{Source: src, Destination: dst, Steps: []Step{{Kind: StepLeg}, egress, ingress}},
			port: 5432, live: true, want: []string{"member-2/shop >nic-db", "member-1/shop nic-web>"}},
		{name: "one member and Namespace: one Trace with both ends",
			res:  Result{Source: src, Destination: dst, Steps: []Step{egress, {Kind: StepIngress, Member: "member-1", Point: "shop/nic-db"}}},
			port: 5432, want: []string{"member-1/shop nic-web>nic-db"}},
		{name: "dropped at the source: only its egress", res: Result{Source: src, Destination: dst, Steps: []Step{egress}},
			port: 80, live: true, want: []string{"member-1/shop nic-web>"}},
		{name: "a Pod's leg is not observed", res: Result{Source: src, Destination: dst, Steps: []Step{{Kind: StepEgress, Member: "member-1", Result: Undecided}, ingress}},
			port: 80, want: []string{"member-2/shop >nic-db"}},
		{name: "any port", res: Result{Source: src, Destination: dst, Steps: []Step{egress}}, wantErr: "give --port"},
		{name: "computed only: no live part", res: Result{Source: src, Destination: dst, Steps: []Step{egress, ingress}},
			port: 443, want: []string{"member-2/shop >nic-db", "member-1/shop nic-web>"}},
		{name: "no addresses", res: Result{Steps: []Step{egress}}, port: 80, wantErr: "no addresses"},
		{name: "nothing to observe", res: Result{Source: src, Destination: dst, Steps: []Step{{Kind: StepLeg}}}, port: 80, wantErr: "nothing to observe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Traces(tc.res, policyrules.ProtocolTCP, tc.port, tc.live, 10)
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
				if lt.Spec.Source.Address != src.String() || lt.Spec.Destination.Address != dst.String() || lt.Spec.Live != tc.live || lt.Spec.Port != tc.port || (lt.Spec.TimeoutSeconds != 0) != tc.live {
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

// TestDecidedByTheMember: a point whose member's policy controller decided
// it (a Trace's status) is traced by that decision, not by its rules, with
// the deciding rule by its parts, the federated policy and what is pending.
func TestDecidedByTheMember(t *testing.T) {
	web := vm("member-1", "web", "vpc-a", nil, addr("10.0.0.5", AddressPrivate))
	// Its rules would allow: the member's decision stands.
	db := vm("member-2", "db", "vpc-a", []policyrules.CompiledRule{rule(in, policyrules.ActionAllow)}, addr("10.0.0.9", AddressPrivate))
	for _, tc := range []struct {
		name        string
		point       policyv1alpha1.TracePoint
		wantVerdict Verdict
		wantNote    []string
	}{
		{name: "dropped by a rule of a derived policy, one policy pending",
			point: policyv1alpha1.TracePoint{ExternalEntity: "shop/db", Direction: "Ingress", Pending: "NetworkPolicy:shop/old is not realised: no status yet",
				Computed: policyv1alpha1.TraceVerdict{Verdict: "Dropped", Rule: "NetworkPolicy:shop/fnp-guard Ingress rule 1 (rest): Drop",
					DecidedBy: &policyv1alpha1.TraceRule{Policy: "NetworkPolicy:shop/fnp-guard", Tier: "application", Direction: "Ingress", Index: 1,
						Name: "rest", Action: "Drop", FederatedPolicy: "shop/guard"}}},
			wantVerdict: Dropped,
			wantNote: []string{"tier application, NetworkPolicy:shop/fnp-guard, Ingress rule 1 (rest): Drop", "derived from FederatedNetworkPolicy shop/guard",
				"NetworkPolicy:shop/old is not realised", "decided by the policy controller of member-2"}},
		{name: "no rule: default allow",
			point:       policyv1alpha1.TracePoint{ExternalEntity: "shop/db", Direction: "Ingress", Computed: policyv1alpha1.TraceVerdict{Verdict: "Allowed", Note: "no rule: default allow"}},
			wantVerdict: Allowed, wantNote: []string{"no rule: default allow", "decided by the policy controller of member-2"}},
		{name: "rejected by a rule its security group enforces as a drop",
			point: policyv1alpha1.TracePoint{ExternalEntity: "shop/db", Direction: "Ingress",
				Computed: policyv1alpha1.TraceVerdict{Verdict: "Rejected",
					DecidedBy: &policyv1alpha1.TraceRule{Policy: "NetworkPolicy:shop/db", Tier: "application", Direction: "Ingress", Index: 0, Action: "Reject"}},
				Findings: []policyv1alpha1.TraceFinding{{Severity: "Approximated", Reason: "RejectEnforcedAsDrop", Policy: "NetworkPolicy:shop/db",
					Rule: "Ingress rule 0", Message: "security groups drop denied traffic silently"}}},
			wantVerdict: Rejected,
			wantNote: []string{"NetworkPolicy:shop/db, Ingress rule 0: Reject", "does not enforce all of it as written: " +
				"Approximated RejectEnforcedAsDrop (NetworkPolicy:shop/db, Ingress rule 0): security groups drop denied traffic silently"}},
		{name: "a verdict this CLI does not know is not taken for an allow",
			point:       policyv1alpha1.TracePoint{ExternalEntity: "shop/db", Direction: "Ingress", Computed: policyv1alpha1.TraceVerdict{Verdict: "Sideways"}},
			wantVerdict: Undecided, wantNote: []string{`answered "Sideways"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := Query{Source: web, Destination: db, Protocol: policyrules.ProtocolTCP, Port: 5432}
			q.Destination.Point = new(*db.Point)
			d, pending := DecisionOf(tc.point, "the policy controller of member-2")
			q.Destination.Point.Decided, q.Destination.Point.Pending = &d, pending
			res := Compute(q)
			last := res.Steps[len(res.Steps)-1]
			if res.Verdict != tc.wantVerdict || last.Result != tc.wantVerdict {
				t.Fatalf("verdict %s (step %s), want %s: %+v", res.Verdict, last.Result, tc.wantVerdict, res)
			}
			for _, w := range tc.wantNote {
				if !strings.Contains(last.Note, w) {
					t.Errorf("note %q lacks %q", last.Note, w)
				}
			}
			if len(last.Findings) != len(tc.point.Findings) {
				t.Errorf("findings %q, want the point's %d", last.Findings, len(tc.point.Findings))
			}
			if r := tc.point.Computed.DecidedBy; r != nil && (last.Rule == nil || last.Rule.Federated != r.FederatedPolicy || last.Rule.Index != r.Index) {
				t.Errorf("rule %+v, want %+v", last.Rule, r)
			}
		})
	}
}
