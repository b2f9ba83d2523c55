package serviceexport

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// Result is the merge of every cluster's export of one namespaced name.
type Result struct {
	Type  mcsv1beta1.ServiceImportType
	Ports []mcsv1beta1.ServicePort
	// SessionAffinity and its config come from the oldest export.
	SessionAffinity       corev1.ServiceAffinity
	SessionAffinityConfig *corev1.SessionAffinityConfig
	// InternalTrafficPolicy and TrafficDistribution ("" when unset) come
	// from the oldest export.
	InternalTrafficPolicy corev1.ServiceInternalTrafficPolicy
	TrafficDistribution   string
	// IPFamilies are the families the exporters serve, IPv4 first.
	IPFamilies []corev1.IPFamily
	// Labels and Annotations are the oldest export's exported ones, whole.
	Labels      map[string]string
	Annotations map[string]string
	// Exports are the merged exports, oldest first (ties: by cluster ID).
	Exports []Export
	// Conflict is the Conflict condition of every export involved: true
	// with the reasons (comma-separated) and details, or NoConflicts.
	Conflict metav1.Condition
}

// Clusters lists the exporting clusters, sorted.
func (r Result) Clusters() []string {
	out := make([]string, 0, len(r.Exports))
	for _, e := range r.Exports {
		out = append(out, e.Cluster)
	}
	sort.Strings(out)
	return out
}

// Export returns the export of a cluster.
func (r Result) Export(cluster string) (Export, bool) {
	for _, e := range r.Exports {
		if e.Cluster == cluster {
			return e, true
		}
	}
	return Export{}, false
}

// Merge merges the valid exports of one name into the desired import, as
// KEP-1645 says: ports are the union, merged by name then by protocol and
// port number; the IP families are the union of the exporters'; the other
// properties, exported labels and annotations included (as whole sets),
// are global and taken from the oldest export (creationTimestamp, then
// cluster ID). Whenever the exports differ in a property, a Conflict condition
// naming every difference goes on every export of the name (see the
// package documentation for the rules). It returns false when there is no
// export.
func Merge(exports []Export) (Result, bool) {
	if len(exports) == 0 {
		return Result{}, false
	}
	sorted := append([]Export(nil), exports...)
	sort.SliceStable(sorted, func(i, j int) bool { return Older(sorted[i], sorted[j]) })
	oldest := sorted[0]
	r := Result{Type: mcsv1beta1.ClusterSetIP, Exports: sorted, SessionAffinity: oldest.SessionAffinity, SessionAffinityConfig: oldest.SessionAffinityConfig,
		InternalTrafficPolicy: oldest.InternalTrafficPolicy, TrafficDistribution: oldest.TrafficDistribution}
	if oldest.Headless {
		r.Type = mcsv1beta1.Headless
	}
	c := conflicts{}
	r.Ports = mergePorts(sorted, &c)
	for _, e := range sorted[1:] {
		compareGlobal(e, oldest, r, &c)
	}
	r.IPFamilies = mergeFamilies(sorted, &c)
	r.Labels = mergeSet(sorted, "label", mcsv1beta1.ServiceExportReasonLabelsConflict, func(e Export) map[string]string { return e.ExportedLabels }, &c)
	r.Annotations = mergeSet(sorted, "annotation", mcsv1beta1.ServiceExportReasonAnnotationsConflict, func(e Export) map[string]string { return e.ExportedAnnotations }, &c)
	r.Conflict = c.condition()
	return r, true
}

// Older tells whether a takes precedence over b: created first, then the lower cluster ID.
func Older(a, b Export) bool {
	if !a.Created.Equal(&b.Created) {
		return a.Created.Before(&b.Created)
	}
	return a.Cluster < b.Cluster
}

// compareGlobal reports how e differs from the oldest export in the
// properties taken from it whole.
func compareGlobal(e, oldest Export, r Result, c *conflicts) {
	if e.Headless != oldest.Headless {
		c.add(mcsv1beta1.ServiceExportReasonTypeConflict, "%s exports a %s Service but %s (oldest export) a %s one: the import is %s",
			e.Cluster, headlessWord(e.Headless), oldest.Cluster, headlessWord(oldest.Headless), r.Type)
	}
	if e.SessionAffinity != oldest.SessionAffinity {
		c.add(mcsv1beta1.ServiceExportReasonSessionAffinityConflict, "%s has session affinity %s but %s (oldest export) %s, which is used",
			e.Cluster, e.SessionAffinity, oldest.Cluster, oldest.SessionAffinity)
	} else if !equality.Semantic.DeepEqual(e.SessionAffinityConfig, oldest.SessionAffinityConfig) {
		c.add(mcsv1beta1.ServiceExportReasonSessionAffinityConfigConflict, "%s has another session affinity config than %s (oldest export), whose config is used",
			e.Cluster, oldest.Cluster)
	}
	if e.InternalTrafficPolicy != oldest.InternalTrafficPolicy {
		c.add(mcsv1beta1.ServiceExportReasonInternalTrafficPolicyConflict, "%s has internal traffic policy %s but %s (oldest export) %s, which is used",
			e.Cluster, e.InternalTrafficPolicy, oldest.Cluster, oldest.InternalTrafficPolicy)
	}
	if e.TrafficDistribution != oldest.TrafficDistribution {
		c.add(mcsv1beta1.ServiceExportReasonTrafficDistributionConflict, "%s has traffic distribution %s but %s (oldest export) %s, which is used",
			e.Cluster, orUnset(e.TrafficDistribution), oldest.Cluster, orUnset(oldest.TrafficDistribution))
	}
}

// mergeFamilies is the union of the exporters' families, IPv4 first. An
// exporter that serves only part of them is reported: the clients of the
// other family do not reach its backends.
func mergeFamilies(exports []Export, c *conflicts) []corev1.IPFamily {
	var all []corev1.IPFamily
	for _, e := range exports {
		all = append(all, e.IPFamilies...)
	}
	all = sortFamilies(all)
	for _, e := range exports {
		if len(e.IPFamilies) > 0 && len(e.IPFamilies) < len(all) {
			var missing []corev1.IPFamily
			for _, f := range all {
				if !slices.Contains(e.IPFamilies, f) {
					missing = append(missing, f)
				}
			}
			c.add(mcsv1beta1.ServiceExportReasonIPFamilyConflict, "%s serves %s only, the other exporters also %s: %s clients do not reach its backends",
				e.Cluster, familyWords(e.IPFamilies), familyWords(missing), familyWords(missing))
		}
	}
	return all
}

// mergeSet takes a map (exported labels or annotations) whole from the
// oldest export, as KEP-1645 says; an export whose map differs in any
// pair is reported, naming the keys that differ.
func mergeSet(exports []Export, what string, reason mcsv1beta1.ServiceExportConditionReason, of func(Export) map[string]string, c *conflicts) map[string]string {
	oldest := exports[0]
	for _, e := range exports[1:] {
		if !maps.Equal(of(e), of(oldest)) {
			c.add(reason, "the exported %ss of %s differ from those of %s (oldest export), which are used: %s",
				what, e.Cluster, oldest.Cluster, describeDiff(of(e), of(oldest), e.Cluster, oldest.Cluster))
		}
	}
	return maps.Clone(of(oldest))
}

// describeDiff names the keys of m (of cluster) that differ from those of
// oldest (of cluster o).
func describeDiff(m, oldest map[string]string, cluster, o string) string {
	var out []string
	for _, k := range sortedKeys(m) {
		switch v, ok := oldest[k]; {
		case !ok:
			out = append(out, fmt.Sprintf("%s only in %s", k, cluster))
		case v != m[k]:
			out = append(out, fmt.Sprintf("%s is %q in %s but %q in %s", k, clip(m[k]), cluster, clip(v), o))
		}
	}
	for _, k := range sortedKeys(oldest) {
		if _, ok := m[k]; !ok {
			out = append(out, fmt.Sprintf("%s only in %s", k, o))
		}
	}
	return strings.Join(out, ", ")
}

func headlessWord(h bool) string {
	if h {
		return "headless"
	}
	return "ClusterSetIP"
}

func orUnset(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

// clip shortens a value for a condition message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:61] + "..."
	}
	return s
}

// conflicts collects the reasons and details of a name's conflicts.
type conflicts struct {
	reasons []string
	details []string
}

func (c *conflicts) add(reason mcsv1beta1.ServiceExportConditionReason, format string, args ...any) {
	if !slices.Contains(c.reasons, string(reason)) {
		c.reasons = append(c.reasons, string(reason))
	}
	c.details = append(c.details, fmt.Sprintf(format, args...))
}

func (c *conflicts) condition() metav1.Condition {
	if len(c.reasons) == 0 {
		return NoConflictCondition(0)
	}
	return condition(mcsv1beta1.ServiceExportConditionConflict, true, mcsv1beta1.ServiceExportConditionReason(strings.Join(c.reasons, ",")),
		strings.Join(c.details, "; "), 0)
}
