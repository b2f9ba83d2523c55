package overlap

import (
	"cmp"
	"maps"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/tenancy/claim"
)

// Claim is one claim Lease of a tenant in a member.
type Claim struct {
	// Tenant is the claimed tenant (a Namespace name).
	Tenant string
	// Holder is spec.holderIdentity, "<instance>/<replica>" or "".
	Holder string
	// Renew is spec.renewTime.
	Renew time.Time
	// Duration is spec.leaseDurationSeconds.
	Duration time.Duration
}

// Current reports whether someone holds the claim at now.
func (c Claim) Current(now time.Time) bool {
	return claim.Lease{Exists: true, Holder: c.Holder, Renew: c.Renew, Duration: c.Duration}.Current(now)
}

// FromLease is the claim a Lease stands for, or false when the Lease is
// not a tenant's claim (label, tenant or name missing or not matching).
func FromLease(l *coordinationv1.Lease) (Claim, bool) {
	lbl := l.GetLabels()
	tenant := lbl[tenancyv1alpha1.LabelTenant]
	if lbl[tenancyv1alpha1.LabelLease] != tenancyv1alpha1.LeaseClaim || tenant == "" || l.Name != tenancyv1alpha1.ClaimLeaseName(tenant) {
		return Claim{}, false
	}
	c := Claim{Tenant: tenant, Holder: ptr.Deref(l.Spec.HolderIdentity, ""),
		Duration: time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0)) * time.Second}
	if l.Spec.RenewTime != nil {
		c.Renew = l.Spec.RenewTime.Time
	}
	return c, true
}

// For returns the tenants member holds a current claim of that other
// members hold a current claim of too, each with those other claims,
// sorted. claims are every member's claims, by member ClusterID.
func For(member string, claims map[string][]Claim, now time.Time) map[string][]tenancyv1alpha1.Overlap {
	mine := current(claims[member], now)
	out := map[string][]tenancyv1alpha1.Overlap{}
	for other, cs := range claims {
		if other == member {
			continue
		}
		for _, c := range cs {
			if mine[c.Tenant] && c.Current(now) {
				out[c.Tenant] = append(out[c.Tenant], tenancyv1alpha1.Overlap{Member: other, Holder: c.Holder})
			}
		}
	}
	return normalize(out)
}

// Input is what one member's overlaps are decided from.
type Input struct {
	// Member is the ClusterID of the member decided for.
	Member string
	// Claims are the claims of every member read now, by ClusterID, the
	// member decided for included.
	Claims map[string][]Claim
	// Kept are the members that cannot be read now: what Previous says of
	// them stays.
	Kept []string
	// Previous are the overlaps last written (the ConfigMap as read).
	Previous map[string][]tenancyv1alpha1.Overlap
	// Now is the time of the decision.
	Now time.Time
}

// Decide is the member's overlaps: those of the members read now (For),
// and those with kept members that Previous holds, for the tenants the
// member still claims. When the member itself cannot be read, Previous
// stays as it is.
func Decide(in Input) map[string][]tenancyv1alpha1.Overlap {
	kept := map[string]bool{}
	for _, k := range in.Kept {
		kept[k] = true
	}
	if _, read := in.Claims[in.Member]; !read || kept[in.Member] {
		return normalize(clone(in.Previous))
	}
	claims := map[string][]Claim{}
	for id, cs := range in.Claims {
		if !kept[id] {
			claims[id] = cs
		}
	}
	out := For(in.Member, claims, in.Now)
	mine := current(in.Claims[in.Member], in.Now)
	for tenant, list := range in.Previous {
		for _, o := range list {
			if kept[o.Member] && mine[tenant] {
				out[tenant] = append(out[tenant], o)
			}
		}
	}
	return normalize(out)
}

// Appearance is a member that claims a tenant which it did not before.
type Appearance struct {
	Tenant string
	// Overlaps are the new members' claims, sorted.
	Overlaps []tenancyv1alpha1.Overlap
}

// Appeared lists, by tenant (sorted), the members in next that claim a
// tenant they did not claim in previous; a new holder in a member already
// there is not new.
func Appeared(previous, next map[string][]tenancyv1alpha1.Overlap) []Appearance {
	var out []Appearance
	for _, tenant := range slices.Sorted(maps.Keys(next)) {
		before := map[string]bool{}
		for _, o := range previous[tenant] {
			before[o.Member] = true
		}
		var added []tenancyv1alpha1.Overlap
		for _, o := range next[tenant] {
			if !before[o.Member] {
				added = append(added, o)
			}
		}
		if len(added) > 0 {
			out = append(out, Appearance{Tenant: tenant, Overlaps: added})
		}
	}
	return out
}

// current is the set of tenants claims hold currently.
func current(claims []Claim, now time.Time) map[string]bool {
	out := map[string]bool{}
	for _, c := range claims {
		if c.Current(now) {
			out[c.Tenant] = true
		}
	}
	return out
}

// normalize sorts every tenant's overlaps, drops duplicates and empty tenants.
func normalize(m map[string][]tenancyv1alpha1.Overlap) map[string][]tenancyv1alpha1.Overlap {
	out := make(map[string][]tenancyv1alpha1.Overlap, len(m))
	for tenant, list := range m {
		if tenant == "" || len(list) == 0 {
			continue
		}
		list = slices.Clone(list)
		slices.SortFunc(list, compare)
		out[tenant] = slices.Compact(list)
	}
	return out
}

func compare(a, b tenancyv1alpha1.Overlap) int {
	return cmp.Or(cmp.Compare(a.Member, b.Member), cmp.Compare(a.Holder, b.Holder))
}

func clone(m map[string][]tenancyv1alpha1.Overlap) map[string][]tenancyv1alpha1.Overlap {
	out := make(map[string][]tenancyv1alpha1.Overlap, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
