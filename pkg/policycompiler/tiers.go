package policycompiler

import "antreaplus.io/antreaplus/pkg/policyrules"

// defaultTierPriorities are the tiers Antrea creates on startup; they exist
// whether or not Tier objects are given to the compiler.
var defaultTierPriorities = map[string]int32{
	policyrules.TierEmergency:   50,
	policyrules.TierSecurityOps: 100,
	policyrules.TierNetworkOps:  150,
	policyrules.TierPlatform:    200,
	policyrules.TierApplication: 250,
	policyrules.TierBaseline:    253,
}

// tierTable holds the priority of every known tier.
type tierTable map[string]int32

func newTierTable() tierTable {
	t := tierTable{}
	for name, priority := range defaultTierPriorities {
		t[name] = priority
	}
	return t
}

func (t tierTable) priority(name string) (int32, bool) {
	p, ok := t[name]
	return p, ok
}

// set records a tier and reports whether its priority changed.
func (t tierTable) set(name string, priority int32) bool {
	old, ok := t[name]
	t[name] = priority
	return !ok || old != priority
}

// remove forgets a tier; a default tier gets its default priority back.
// It reports whether anything changed.
func (t tierTable) remove(name string) bool {
	old, ok := t[name]
	if def, isDefault := defaultTierPriorities[name]; isDefault {
		t[name] = def
		return old != def
	}
	delete(t, name)
	return ok
}
