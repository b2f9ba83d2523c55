package livetrace

import (
	"fmt"
	"net/netip"
	"strconv"
	"testing"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

var (
	peer     = netip.MustParseAddr("10.0.0.7")
	stranger = netip.MustParseAddr("192.0.2.1")
	fnp      = policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: "shop", Name: "fnp-db"}
)

func compiled(action policyrules.Action, index int32, from netip.Prefix) policyrules.CompiledRule {
	return policyrules.CompiledRule{Policy: fnp, Direction: policyrules.DirectionIngress, Action: action, Tier: "application",
		RuleName: "ingress-" + strconv.Itoa(int(index)), Priority: policyrules.Priority{RuleIndex: index},
		Peers: []netip.Prefix{from}, Ports: []policyrules.Port{{Protocol: policyrules.ProtocolTCP, Port: 5432, EndPort: 5432, ICMPType: policyrules.AnyType, ICMPCode: policyrules.AnyType, IGMPType: policyrules.AnyType}}}
}

func key(action policyrules.Action, index int32) *wire.RuleKey {
	return &wire.RuleKey{Policy: wire.PolicyRef{Kind: string(fnp.Kind), Namespace: fnp.Namespace, Name: fnp.Name},
		Direction: policyrules.DirectionIngress, Index: index, Name: "ingress-" + strconv.Itoa(int(index)), Action: action}
}

// TestComputeAndObserve: a point's computed verdict names the rule the
// enforcer was served; an observation agrees only with the same verdict by
// the same rule.
func TestComputeAndObserve(t *testing.T) {
	rules := []policyrules.CompiledRule{
		compiled(policyrules.ActionAllow, 0, netip.MustParsePrefix("10.0.0.0/24")),
		compiled(policyrules.ActionDrop, 1, netip.MustParsePrefix("0.0.0.0/0")),
	}
	point := func(from netip.Addr) Point {
		return Point{Endpoint: "shop/db", Direction: policyrules.DirectionIngress, Served: true, Rules: rules, Peer: from}
	}
	for _, tc := range []struct {
		name        string
		point       Point
		port        int32
		wantVerdict string
		wantRule    string
		obs         wire.Observation
		agrees      bool
	}{
		{name: "allowed by a rule, observed the same", point: point(peer), port: 5432, wantVerdict: "Allowed",
			wantRule: "AntreaNetworkPolicy:shop/fnp-db Ingress rule 0 (ingress-0): Allow",
			obs:      wire.Observation{Verdict: wire.ObservedAllowed, Rule: key(policyrules.ActionAllow, 0)}, agrees: true},
		{name: "dropped by a rule, observed allowed by none: the agent is out of date", point: point(stranger), port: 5432,
			wantVerdict: "Dropped", wantRule: "AntreaNetworkPolicy:shop/fnp-db Ingress rule 1 (ingress-1): Drop",
			obs: wire.Observation{Verdict: wire.ObservedAllowed, Note: "no rule"}, agrees: false},
		{name: "same verdict, another rule: differs", point: point(stranger), port: 5432, wantVerdict: "Dropped",
			wantRule: "AntreaNetworkPolicy:shop/fnp-db Ingress rule 1 (ingress-1): Drop",
			obs:      wire.Observation{Verdict: wire.ObservedDropped, Rule: key(policyrules.ActionDrop, 0)}, agrees: false},
		{name: "no rule for the port: default allow, observed by the chain's policy", point: point(stranger), port: 80,
			wantVerdict: "Allowed", obs: wire.Observation{Verdict: wire.ObservedAllowed, Note: "the input chain's policy"}, agrees: true},
		{name: "a point served no rules", point: Point{Endpoint: "shop/db", Direction: policyrules.DirectionIngress, Peer: peer},
			port: 5432, wantVerdict: "Allowed", obs: wire.Observation{Verdict: wire.ObservedAllowed}, agrees: true},
		{name: "not seen never agrees", point: point(peer), port: 5432, wantVerdict: "Allowed",
			wantRule: "AntreaNetworkPolicy:shop/fnp-db Ingress rule 0 (ingress-0): Allow",
			obs:      wire.Observation{Verdict: wire.ObservedNotSeen}, agrees: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Compute(tc.point, policyrules.ProtocolTCP, tc.port)
			if c.Verdict.Verdict != tc.wantVerdict || c.Verdict.Rule != tc.wantRule {
				t.Fatalf("computed %+v, want %s by %q", c.Verdict, tc.wantVerdict, tc.wantRule)
			}
			obs, agrees := Observe(c, tc.obs)
			if agrees != tc.agrees {
				t.Fatalf("agrees = %v, want %v (observed %+v)", agrees, tc.agrees, obs)
			}
			if !agrees && tc.obs.Verdict != wire.ObservedNotSeen && obs.Note == "" {
				t.Errorf("a difference without a note: %+v", obs)
			}
		})
	}
}

func TestFlowVerdict(t *testing.T) {
	v := func(s string) policyv1alpha1.TraceVerdict { return policyv1alpha1.TraceVerdict{Verdict: s} }
	ptr := func(tv policyv1alpha1.TraceVerdict) *policyv1alpha1.TraceVerdict { return &tv }
	for _, tc := range []struct {
		name   string
		points []policyv1alpha1.TracePoint
		want   string
	}{
		{"nothing here stops it", []policyv1alpha1.TracePoint{{Computed: v("Allowed")}, {Computed: v("Allowed")}}, "Allowed"},
		{"the egress drops it", []policyv1alpha1.TracePoint{{Computed: v("Dropped")}, {Computed: v("Allowed")}}, "Dropped"},
		{"the observed verdict wins", []policyv1alpha1.TracePoint{{Computed: v("Allowed"), Observed: ptr(v("Rejected"))}}, "Rejected"},
		{"an unseen packet keeps the computed one", []policyv1alpha1.TracePoint{{Computed: v("Dropped"), Observed: ptr(v("NotSeen"))}}, "Dropped"},
		{"no point", nil, "Allowed"},
	} {
		if got := FlowVerdict(tc.points); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestFindings(t *testing.T) {
	web := wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "shop", Name: "web"}
	other := wire.PolicyRef{Kind: string(policyrules.KindNetworkPolicy), Namespace: "shop", Name: "other"}
	rules := []policyrules.CompiledRule{{Policy: policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: "shop", Name: "web"}}}
	reported := []wire.Finding{
		{Policy: other, Severity: wire.SeverityUnrealized, Reason: "DenyNotExpressible", Message: "not this point's policy"},
		{Policy: web, Rule: "Ingress rule 0", Severity: wire.SeverityApproximated, Reason: "RejectEnforcedAsDrop", Message: "silently"},
		{Severity: wire.SeverityUnrealized, Reason: "SyncFailed", Message: "the VPC's sync failed"},
	}
	for _, tc := range []struct {
		name     string
		reported []wire.Finding
		rules    []policyrules.CompiledRule
		want     string
	}{
		{name: "none reported", rules: rules, want: "[]"},
		{name: "the point's policy and the endpoint's, not another policy's", reported: reported, rules: rules,
			want: "[{Approximated RejectEnforcedAsDrop AntreaNetworkPolicy:shop/web Ingress rule 0 silently} {Unrealized SyncFailed   the VPC's sync failed}]"},
		{name: "no rules: only what concerns every policy", reported: reported,
			want: "[{Unrealized SyncFailed   the VPC's sync failed}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(Findings(tc.reported, tc.rules)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
