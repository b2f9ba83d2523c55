package serviceexport

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMergeV1beta1Properties covers the properties v1beta1 added to the
// import: each is taken from the oldest export (or merged), and any
// difference is a Conflict with its own reason.
func TestMergeV1beta1Properties(t *testing.T) {
	for _, tc := range []struct {
		name    string
		exports []Export
		want    string // the merged property, as printed by show
		show    func(Result) string
		reason  string
		details []string
	}{
		{name: "internal traffic policy from the oldest",
			exports: []Export{export("member-1", time.Second), export("member-2", 0, withITP(corev1.ServiceInternalTrafficPolicyLocal))},
			show:    func(r Result) string { return string(r.InternalTrafficPolicy) }, want: "Local", reason: "InternalTrafficPolicyConflict",
			details: []string{"member-1 has internal traffic policy Cluster but member-2 (oldest export) Local, which is used"}},
		{name: "traffic distribution from the oldest, unset included",
			exports: []Export{export("member-1", 0), export("member-2", time.Second, withTD("PreferClose"))},
			show:    func(r Result) string { return r.TrafficDistribution }, want: "", reason: "TrafficDistributionConflict",
			details: []string{"member-2 has traffic distribution PreferClose but member-1 (oldest export) unset, which is used"}},
		{name: "same traffic distribution: no conflict",
			exports: []Export{export("member-1", 0, withTD("PreferClose")), export("member-2", time.Second, withTD("PreferClose"))},
			show:    func(r Result) string { return r.TrafficDistribution }, want: "PreferClose"},
		{name: "families are the union, IPv4 first; a partial exporter conflicts",
			exports: []Export{export("member-1", 0, withIPs("fd00::1")), export("member-2", time.Second, withIPs("10.0.0.1", "fd00::2"))},
			show:    func(r Result) string { return familyWords(r.IPFamilies) }, want: "IPv4,IPv6", reason: "IPFamilyConflict",
			details: []string{"member-1 serves IPv6 only, the other exporters also IPv4: IPv4 clients do not reach its backends"}},
		{name: "an export serving no family yet does not conflict",
			exports: []Export{export("member-1", 0, withIPs()), export("member-2", time.Second, withIPs("fd00::2"))},
			show:    func(r Result) string { return familyWords(r.IPFamilies) }, want: "IPv6"},
		{name: "labels: the oldest export's set, whole",
			exports: []Export{export("member-1", time.Second, withLabels("team", "b", "tier", "web")), export("member-2", 0, withLabels("team", "a", "env", "prod"))},
			show:    func(r Result) string { return fmt.Sprint(r.Labels) }, want: "map[env:prod team:a]", reason: "LabelsConflict",
			details: []string{`the exported labels of member-1 differ from those of member-2 (oldest export), which are used: team is "b" in member-1 but "a" in member-2, tier only in member-1, env only in member-2`}},
		{name: "labels: a set against none conflicts",
			exports: []Export{export("member-1", 0), export("member-2", time.Second, withLabels("team", "a"))},
			show:    func(r Result) string { return fmt.Sprint(len(r.Labels)) }, want: "0", reason: "LabelsConflict",
			details: []string{"team only in member-2"}},
		{name: "annotations likewise",
			exports: []Export{export("member-1", 0, withAnnotations("note", "x")), export("member-2", time.Second, withAnnotations("note", "y", "extra", "z"))},
			show:    func(r Result) string { return fmt.Sprint(r.Annotations) }, want: "map[note:x]", reason: "AnnotationsConflict",
			details: []string{`the exported annotations of member-2 differ from those of member-1 (oldest export), which are used: extra only in member-2, note is "y" in member-2 but "x" in member-1`}},
		{name: "same labels and annotations: no conflict",
			exports: []Export{export("member-1", 0, withLabels("team", "a"), withAnnotations("n", "1")), export("member-2", time.Second, withLabels("team", "a"), withAnnotations("n", "1"))},
			show:    func(r Result) string { return fmt.Sprint(r.Labels, r.Annotations) }, want: "map[team:a] map[n:1]"},
		{name: "every reason at once, in a fixed order",
			exports: []Export{export("member-1", 0, withIPs("10.0.0.1", "fd00::1"), withLabels("a", "1"), withAnnotations("b", "1")),
				export("member-2", time.Second, withITP("Local"), withTD("PreferClose"), withIPs("10.0.0.2"), withLabels("a", "2"), withAnnotations("b", "2"), withPorts(mport("http", 81, tcp)))},
			show: func(r Result) string { return "" }, want: "",
			reason: "PortConflict,InternalTrafficPolicyConflict,TrafficDistributionConflict,IPFamilyConflict,LabelsConflict,AnnotationsConflict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := Merge(tc.exports)
			if !ok {
				t.Fatal("Merge found no export")
			}
			if got := tc.show(r); got != tc.want {
				t.Errorf("merged %q, want %q", got, tc.want)
			}
			wantReason, wantStatus := tc.reason, metav1.ConditionTrue
			if wantReason == "" {
				wantReason, wantStatus = "NoConflicts", metav1.ConditionFalse
			}
			if r.Conflict.Reason != wantReason || r.Conflict.Status != wantStatus {
				t.Errorf("conflict %s %s (%s), want %s %s", r.Conflict.Status, r.Conflict.Reason, r.Conflict.Message, wantStatus, wantReason)
			}
			for _, d := range tc.details {
				if !strings.Contains(r.Conflict.Message, d) {
					t.Errorf("conflict message %q does not say %q", r.Conflict.Message, d)
				}
			}
		})
	}
}
