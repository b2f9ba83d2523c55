package overlap

import (
	"reflect"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

var now = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// cur is a claim renewed a second ago, for 15 s.
func cur(tenant, holder string) Claim {
	return Claim{Tenant: tenant, Holder: holder, Renew: now.Add(-time.Second), Duration: 15 * time.Second}
}

// expired is a claim last renewed 16 s ago, for 15 s.
func expired(tenant, holder string) Claim {
	return Claim{Tenant: tenant, Holder: holder, Renew: now.Add(-16 * time.Second), Duration: 15 * time.Second}
}

func ov(member, holder string) tenancyv1alpha1.Overlap {
	return tenancyv1alpha1.Overlap{Member: member, Holder: holder}
}

type overlaps = map[string][]tenancyv1alpha1.Overlap

func TestFor(t *testing.T) {
	tests := []struct {
		name   string
		claims map[string][]Claim
		want   overlaps
	}{
		{"no claims anywhere", nil, overlaps{}},
		{"claimed here only", map[string][]Claim{"m1": {cur("t1", "shared/a")}}, overlaps{}},
		{"claimed elsewhere only: not this member's overlap", map[string][]Claim{"m2": {cur("t1", "shared/a")}}, overlaps{}},
		{"claimed in two members", map[string][]Claim{
			"m1": {cur("t1", "shared/a"), cur("t2", "shared/a")},
			"m2": {cur("t1", "eu/b")},
		}, overlaps{"t1": {ov("m2", "eu/b")}}},
		{"three members, sorted by member", map[string][]Claim{
			"m1": {cur("t1", "shared/a")},
			"m3": {cur("t1", "x/c")},
			"m2": {cur("t1", "eu/b")},
		}, overlaps{"t1": {ov("m2", "eu/b"), ov("m3", "x/c")}}},
		{"expired elsewhere: ignored", map[string][]Claim{
			"m1": {cur("t3", "shared/a")},
			"m2": {expired("t3", "eu/b")},
		}, overlaps{}},
		{"expired here: ignored", map[string][]Claim{
			"m1": {expired("t1", "shared/a")},
			"m2": {cur("t1", "eu/b")},
		}, overlaps{}},
		{"released (holderless) elsewhere: ignored", map[string][]Claim{
			"m1": {cur("t1", "shared/a")},
			"m2": {cur("t1", "")},
		}, overlaps{}},
		{"released here: ignored", map[string][]Claim{
			"m1": {cur("t1", "")},
			"m2": {cur("t1", "eu/b")},
		}, overlaps{}},
		{"expiring exactly now: not current", map[string][]Claim{
			"m1": {cur("t1", "shared/a")},
			"m2": {{Tenant: "t1", Holder: "eu/b", Renew: now.Add(-15 * time.Second), Duration: 15 * time.Second}},
		}, overlaps{}},
		{"the same claim listed twice: once", map[string][]Claim{
			"m1": {cur("t1", "shared/a")},
			"m2": {cur("t1", "eu/b"), cur("t1", "eu/b")},
		}, overlaps{"t1": {ov("m2", "eu/b")}}},
		{"two holders in one member: both, sorted", map[string][]Claim{
			"m1": {cur("t1", "shared/a")},
			"m2": {cur("t1", "eu/c"), cur("t1", "eu/b")},
		}, overlaps{"t1": {ov("m2", "eu/b"), ov("m2", "eu/c")}}},
		{"one current and one expired claim here: claimed", map[string][]Claim{
			"m1": {expired("t1", "shared/old"), cur("t1", "shared/a")},
			"m2": {cur("t1", "eu/b")},
		}, overlaps{"t1": {ov("m2", "eu/b")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := For("m1", tt.claims, now)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("For = %v, want %v", got, tt.want)
			}
			// Deterministic: the same answer every time (map order).
			for range 20 {
				if again := For("m1", tt.claims, now); !reflect.DeepEqual(again, got) {
					t.Fatalf("For changed between calls: %v, then %v", got, again)
				}
			}
		})
	}
}

func TestForIsSymmetric(t *testing.T) {
	claims := map[string][]Claim{
		"m1": {cur("t1", "shared/a"), cur("t2", "shared/a")},
		"m2": {cur("t1", "eu/b"), expired("t2", "eu/b")},
	}
	m1, m2 := For("m1", claims, now), For("m2", claims, now)
	if want := (overlaps{"t1": {ov("m2", "eu/b")}}); !reflect.DeepEqual(m1, want) {
		t.Errorf("m1: %v, want %v", m1, want)
	}
	if want := (overlaps{"t1": {ov("m1", "shared/a")}}); !reflect.DeepEqual(m2, want) {
		t.Errorf("m2: %v, want %v", m2, want)
	}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name     string
		claims   map[string][]Claim
		kept     []string
		previous overlaps
		want     overlaps
	}{
		{"every member read: For", map[string][]Claim{
			"m1": {cur("t1", "shared/a")}, "m2": {cur("t1", "eu/b")},
		}, nil, overlaps{"t9": {ov("m2", "eu/b")}}, overlaps{"t1": {ov("m2", "eu/b")}}},
		{"a kept member's overlaps stay", map[string][]Claim{
			"m1": {cur("t1", "shared/a"), cur("t2", "shared/a")}, "m3": {cur("t2", "x/c")},
		}, []string{"m2"}, overlaps{"t1": {ov("m2", "eu/b")}, "t2": {ov("m2", "eu/b")}},
			overlaps{"t1": {ov("m2", "eu/b")}, "t2": {ov("m2", "eu/b"), ov("m3", "x/c")}}},
		{"a kept member's overlap goes once the tenant is no longer claimed here", map[string][]Claim{
			"m1": {expired("t1", "shared/a")},
		}, []string{"m2"}, overlaps{"t1": {ov("m2", "eu/b")}}, overlaps{}},
		{"a kept member's claims read anyway are not used", map[string][]Claim{
			"m1": {cur("t1", "shared/a")}, "m2": {cur("t1", "eu/new")},
		}, []string{"m2"}, overlaps{}, overlaps{}},
		{"a member neither read nor kept claims nothing", map[string][]Claim{
			"m1": {cur("t1", "shared/a")},
		}, nil, overlaps{"t1": {ov("m2", "eu/b")}}, overlaps{}},
		{"this member not read: previous stays", map[string][]Claim{
			"m2": {cur("t1", "eu/b")},
		}, nil, overlaps{"t1": {ov("m3", "x/c")}}, overlaps{"t1": {ov("m3", "x/c")}}},
		{"this member kept: previous stays", map[string][]Claim{
			"m1": {}, "m2": {cur("t1", "eu/b")},
		}, []string{"m1"}, overlaps{"t1": {ov("m3", "x/c")}}, overlaps{"t1": {ov("m3", "x/c")}}},
		{"nothing anywhere", map[string][]Claim{"m1": nil}, nil, nil, overlaps{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(Input{Member: "m1", Claims: tt.claims, Kept: tt.kept, Previous: tt.previous, Now: now})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decide = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAppeared(t *testing.T) {
	tests := []struct {
		name           string
		previous, next overlaps
		want           []Appearance
	}{
		{"nothing", nil, overlaps{}, nil},
		{"a new tenant", overlaps{}, overlaps{"t1": {ov("m2", "eu/b")}},
			[]Appearance{{Tenant: "t1", Overlaps: []tenancyv1alpha1.Overlap{ov("m2", "eu/b")}}}},
		{"unchanged", overlaps{"t1": {ov("m2", "eu/b")}}, overlaps{"t1": {ov("m2", "eu/b")}}, nil},
		{"a new holder in the same member: not new", overlaps{"t1": {ov("m2", "eu/b")}}, overlaps{"t1": {ov("m2", "eu/c")}}, nil},
		{"one more member", overlaps{"t1": {ov("m2", "eu/b")}}, overlaps{"t1": {ov("m2", "eu/b"), ov("m3", "x/c")}},
			[]Appearance{{Tenant: "t1", Overlaps: []tenancyv1alpha1.Overlap{ov("m3", "x/c")}}}},
		{"gone: nothing appears", overlaps{"t1": {ov("m2", "eu/b")}}, overlaps{}, nil},
		{"sorted by tenant", overlaps{}, overlaps{"tb": {ov("m2", "eu/b")}, "ta": {ov("m3", "x/c")}},
			[]Appearance{{Tenant: "ta", Overlaps: []tenancyv1alpha1.Overlap{ov("m3", "x/c")}}, {Tenant: "tb", Overlaps: []tenancyv1alpha1.Overlap{ov("m2", "eu/b")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Appeared(tt.previous, tt.next); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Appeared = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestFromLease(t *testing.T) {
	lease := func(name string, labels map[string]string, holder *string) *coordinationv1.Lease {
		return &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: holder, RenewTime: &metav1.MicroTime{Time: now},
				LeaseDurationSeconds: ptr.To(int32(15))},
		}
	}
	claimLabels := func(tenant string) map[string]string {
		return map[string]string{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseClaim, tenancyv1alpha1.LabelTenant: tenant}
	}
	tests := []struct {
		name  string
		lease *coordinationv1.Lease
		want  Claim
		ok    bool
	}{
		{"a claim", lease("tenant-t1", claimLabels("t1"), ptr.To("shared/a")), Claim{Tenant: "t1", Holder: "shared/a", Renew: now, Duration: 15 * time.Second}, true},
		{"released: no holder", lease("tenant-t1", claimLabels("t1"), nil), Claim{Tenant: "t1", Renew: now, Duration: 15 * time.Second}, true},
		{"a replica heartbeat", lease("tenancy-shared-a", map[string]string{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseReplica}, ptr.To("shared/a")), Claim{}, false},
		{"no tenant", lease("tenant-", claimLabels(""), ptr.To("shared/a")), Claim{}, false},
		{"name not the tenant's", lease("tenant-t2", claimLabels("t1"), ptr.To("shared/a")), Claim{}, false},
		{"no labels", lease("tenant-t1", nil, ptr.To("shared/a")), Claim{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FromLease(tt.lease)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FromLease = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
	noRenew := lease("tenant-t1", claimLabels("t1"), ptr.To("shared/a"))
	noRenew.Spec.RenewTime = nil
	if c, ok := FromLease(noRenew); !ok || c.Current(now) {
		t.Errorf("a claim never renewed: %+v, %v; want a claim that is not current", c, ok)
	}
}

func TestEncodeDecode(t *testing.T) {
	in := overlaps{"t1": {ov("m3", "x/c"), ov("m2", "eu/b")}, "t2": {ov("m2", "eu/b")}, "empty": nil}
	data := Encode(in)
	want := map[string]string{
		"t1": `[{"member":"m2","holder":"eu/b"},{"member":"m3","holder":"x/c"}]`,
		"t2": `[{"member":"m2","holder":"eu/b"}]`,
	}
	if !reflect.DeepEqual(data, want) {
		t.Errorf("Encode = %v, want %v", data, want)
	}
	back, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if wantBack := (overlaps{"t1": {ov("m2", "eu/b"), ov("m3", "x/c")}, "t2": {ov("m2", "eu/b")}}); !reflect.DeepEqual(back, wantBack) {
		t.Errorf("Decode = %v, want %v", back, wantBack)
	}
	if got := Encode(nil); len(got) != 0 {
		t.Errorf("Encode(nil) = %v, want empty", got)
	}
	bad := map[string]string{"t1": "not json", "t2": `[{"member":"m2","holder":"eu/b"}]`}
	got, err := Decode(bad)
	if err == nil {
		t.Error("Decode of a bad value: no error")
	}
	if wantGood := (overlaps{"t2": {ov("m2", "eu/b")}}); !reflect.DeepEqual(got, wantGood) {
		t.Errorf("Decode with a bad value = %v, want the good ones %v", got, wantGood)
	}
}
