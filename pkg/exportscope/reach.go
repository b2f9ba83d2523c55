package exportscope

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
)

// Member is a registry member as scopes see it.
type Member struct {
	ClusterID string
	// Labels are its registry labels (federation join --label).
	Labels map[string]string
	// Refuses are the exporters whose exports it never imports.
	Refuses Refusal
}

// Refusal is what an importing member refuses: exporters by ClusterID or
// by registry label. The zero value refuses nothing.
type Refusal struct {
	ClusterIDs []string
	Selector   labels.Selector
	// All refuses every other member: what a refusal that cannot be read gets.
	All bool
}

func (r Refusal) refuses(exporter Member) bool {
	return r.All || slices.Contains(r.ClusterIDs, exporter.ClusterID) ||
		(r.Selector != nil && !r.Selector.Empty() && r.Selector.Matches(labels.Set(exporter.Labels)))
}

// Reason says why an export does not reach a member.
type Reason string

const (
	// NotInScope: the member is outside the scope the exporter set.
	NotInScope Reason = "NotInScope"
	// Refused: the member refuses the exporter's exports.
	Refused Reason = "Refused"
)

// Reaches tells whether an export of exporter, with scope s, reaches the
// member to, and why not: NotInScope before Refused (a member outside the
// scope is not reached whatever it refuses). The exporter always reaches
// itself: it is in its own clusterset.
func Reaches(s Scope, exporter, to Member) (bool, Reason) {
	if to.ClusterID == exporter.ClusterID {
		return true, ""
	}
	inScope := !s.Closed && (s.Everywhere() || slices.Contains(s.ClusterIDs, to.ClusterID) ||
		s.Selector != nil && s.Selector.Matches(labels.Set(to.Labels)))
	switch {
	case !inScope:
		return false, NotInScope
	case to.Refuses.refuses(exporter):
		return false, Refused
	}
	return true, ""
}

// Reach is whether an export reaches one member.
type Reach struct {
	ClusterID string
	Reached   bool
	Reason    Reason
}

// ReachOf is, for an export of exporter with scope s, every member of the
// registry (sorted by ClusterID) with whether the export reaches it.
func ReachOf(s Scope, exporter Member, members []Member) []Reach {
	out := make([]Reach, 0, len(members))
	for _, m := range members {
		ok, why := Reaches(s, exporter, m)
		out = append(out, Reach{ClusterID: m.ClusterID, Reached: ok, Reason: why})
	}
	slices.SortFunc(out, func(a, b Reach) int { return cmp.Compare(a.ClusterID, b.ClusterID) })
	return out
}

// Unknown lists the ClusterIDs a scope names that are not in the
// registry: the export's status says so (a member that joins later is
// reached then).
func Unknown(s Scope, members []Member) []string {
	var out []string
	for _, id := range s.ClusterIDs {
		if !slices.ContainsFunc(members, func(m Member) bool { return m.ClusterID == id }) {
			out = append(out, id)
		}
	}
	return out
}
