package serviceexport

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// Result is the merge of every cluster's export of one namespaced name.
type Result struct {
	Type  mcsv1beta1.ServiceImportType
	Ports []mcsv1beta1.ServicePort
	// SessionAffinity and its config come from the oldest export.
	SessionAffinity       corev1.ServiceAffinity
	SessionAffinityConfig *corev1.SessionAffinityConfig
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
// port number; headlessness and session affinity are global properties; a
// property that cannot be merged is taken from the oldest export
// (creationTimestamp, then cluster ID) and a Conflict condition goes on
// every export of the name. It returns false when there is no export.
func Merge(exports []Export) (Result, bool) {
	if len(exports) == 0 {
		return Result{}, false
	}
	sorted := append([]Export(nil), exports...)
	sort.SliceStable(sorted, func(i, j int) bool { return Older(sorted[i], sorted[j]) })
	oldest := sorted[0]
	r := Result{Type: mcsv1beta1.ClusterSetIP, Exports: sorted, SessionAffinity: oldest.SessionAffinity, SessionAffinityConfig: oldest.SessionAffinityConfig}
	if oldest.Headless {
		r.Type = mcsv1beta1.Headless
	}
	c := conflicts{}
	r.Ports = mergePorts(sorted, &c)
	for _, e := range sorted[1:] {
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
	}
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

// mergePorts is the union of the exports' ports, in precedence order. A
// port whose name is taken with other properties, or whose protocol and
// number are taken under another name, is left out and reported.
func mergePorts(exports []Export, c *conflicts) []mcsv1beta1.ServicePort {
	var out []mcsv1beta1.ServicePort
	byName := map[string]int{}
	owner := map[string]string{}
	byNumber := map[string]string{}
	for _, e := range exports {
		for _, p := range e.Ports {
			number := fmt.Sprintf("%d/%s", p.Port, p.Protocol)
			if i, ok := byName[p.Name]; ok {
				if q := out[i]; q.Port != p.Port || q.Protocol != p.Protocol || ptr.Deref(q.AppProtocol, "") != ptr.Deref(p.AppProtocol, "") {
					c.add(mcsv1beta1.ServiceExportReasonPortConflict, "port %q is %s in %s but %s in %s (oldest export), which is used",
						p.Name, describePort(p), e.Cluster, describePort(q), owner[p.Name])
				}
				continue
			}
			if other, ok := byNumber[number]; ok {
				c.add(mcsv1beta1.ServiceExportReasonPortConflict, "port %s is named %q in %s but %q in %s (oldest export), which is used",
					number, p.Name, e.Cluster, other, owner[other])
				continue
			}
			byName[p.Name], owner[p.Name], byNumber[number] = len(out), e.Cluster, p.Name
			out = append(out, p)
		}
	}
	return out
}

func describePort(p mcsv1beta1.ServicePort) string {
	s := fmt.Sprintf("%d/%s", p.Port, p.Protocol)
	if p.AppProtocol != nil {
		s += " (" + *p.AppProtocol + ")"
	}
	return s
}

func headlessWord(h bool) string {
	if h {
		return "headless"
	}
	return "ClusterSetIP"
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
