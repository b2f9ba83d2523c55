package exportscope

import (
	"cmp"
	"slices"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Export is one export as a scope decision sees it: its exporter, the
// Namespace and name it gives, and its scope.
type Export struct {
	Exporter  Member
	Namespace string
	Name      string
	Scope     Scope
}

// MaxWithheld is how many withheld exports of one kind a member's status
// lists; the rest are counted.
const MaxWithheld = 256

// Withheld are the exports that do not reach importer, each with why
// (NotInScope, Refused), sorted by Namespace, name and exporter; at most
// MaxWithheld, more counting the others. An importer's own exports always
// reach it.
func Withheld(exports []Export, importer Member) (out []federationv1alpha1.WithheldExport, more int32) {
	for _, e := range exports {
		if ok, why := Reaches(e.Scope, e.Exporter, importer); !ok {
			out = append(out, federationv1alpha1.WithheldExport{Cluster: e.Exporter.ClusterID, Namespace: e.Namespace, Name: e.Name, Reason: string(why)})
		}
	}
	sortWithheld(out)
	out = slices.CompactFunc(out, func(a, b federationv1alpha1.WithheldExport) bool { return a == b })
	if len(out) > MaxWithheld {
		more = int32(len(out) - MaxWithheld)
		out = out[:MaxWithheld:MaxWithheld]
	}
	return out, more
}

// WithheldFrom are the withheld exports of list in Namespace ns (and of
// name, unless name is empty), by exporter: "member-3 (not in its scope)".
func WithheldFrom(list []federationv1alpha1.WithheldExport, ns, name string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range list {
		if w.Namespace != ns || (name != "" && w.Name != name) {
			continue
		}
		line := w.Cluster + " (" + whyWithheld(w.Reason) + ")"
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
}

func whyWithheld(reason string) string {
	if reason == string(Refused) {
		return "refused here: spec.imports of this member's ClusterMembership"
	}
	return "its export's scope leaves this member out"
}

// MergeWithheld adds kept entries (of exporters that cannot be read now,
// as listed before) to list, sorted and capped as Withheld does.
func MergeWithheld(list []federationv1alpha1.WithheldExport, more int32, kept []federationv1alpha1.WithheldExport) ([]federationv1alpha1.WithheldExport, int32) {
	if len(kept) == 0 {
		return list, more
	}
	all := slices.Concat(list, kept)
	sortWithheld(all)
	if len(all) > MaxWithheld {
		more += int32(len(all) - MaxWithheld)
		all = all[:MaxWithheld:MaxWithheld]
	}
	return all, more
}

func sortWithheld(list []federationv1alpha1.WithheldExport) {
	slices.SortFunc(list, func(a, b federationv1alpha1.WithheldExport) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Cluster, b.Cluster), cmp.Compare(a.Reason, b.Reason))
	})
}
