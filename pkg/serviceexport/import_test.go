package serviceexport

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestDesiredImportV1beta1(t *testing.T) {
	r, _ := Merge([]Export{
		export("member-1", 0, withITP("Local"), withTD("PreferClose"), withIPs("10.0.0.1", "fd00::1"), withLabels("team", "a"), withAnnotations("note", "x")),
		export("member-2", time.Second, withITP("Local"), withTD("PreferClose"), withIPs("10.0.0.2", "fd00::2"), withLabels("tier", "web")),
	})
	imp := DesiredImport("ns", "web", r, ClusterSetIP{IPs: []string{"fd00:202::7", "10.202.0.7"}})
	s := imp.Spec
	if familyWords(s.IPFamilies) != "IPv6,IPv4" || ptr.Deref(s.InternalTrafficPolicy, "") != "Local" || ptr.Deref(s.TrafficDistribution, "") != "PreferClose" {
		t.Errorf("spec: families %v (want the IPs' order), itp %v, td %v", s.IPFamilies, s.InternalTrafficPolicy, s.TrafficDistribution)
	}
	if imp.Labels["team"] != "a" || imp.Labels["tier"] != "" || imp.Labels[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation || imp.Annotations["note"] != "x" ||
		imp.Annotations[federationv1alpha1.AnnotationDerivedService] != "mcs-web" {
		t.Errorf("metadata: labels %v annotations %v", imp.Labels, imp.Annotations)
	}
	if imp.Status.EndpointSliceObjects != mcsv1beta1.EndpointSliceObjectsPresent || len(imp.Status.Conditions) != 1 || imp.Status.Conditions[0].Reason != "Ready" {
		t.Errorf("status %+v, want slices present and Ready", imp.Status)
	}

	h, _ := Merge([]Export{export("member-1", 0, asHeadless(), withIPs("fd00::1")), export("member-2", time.Second, asHeadless(), withIPs("10.0.0.2"))})
	himp := DesiredImport("ns", "db", h, ClusterSetIP{})
	if familyWords(himp.Spec.IPFamilies) != "IPv4,IPv6" || len(himp.Spec.IPs) != 0 {
		t.Errorf("headless import: families %v IPs %v, want the exporters' families and no IP", himp.Spec.IPFamilies, himp.Spec.IPs)
	}
}

func TestBookkeepingWinsOverExportedMetadata(t *testing.T) {
	r, _ := Merge([]Export{export("member-1", 0)})
	// Exports never carry reserved keys (ExportedMetadata drops them); if
	// one did, the bookkeeping value would still be written.
	r.Labels = map[string]string{federationv1alpha1.LabelManagedBy: "someone", mcsv1beta1.LabelServiceName: "other"}
	r.Annotations = map[string]string{federationv1alpha1.AnnotationAddressTypes: "forged"}
	imp := DesiredImport("ns", "web", r, ClusterSetIP{IPs: []string{"10.202.0.7"}})
	if imp.Labels[federationv1alpha1.LabelManagedBy] != federationv1alpha1.ManagedByFederation || imp.Labels[mcsv1beta1.LabelServiceName] != "web" || imp.Annotations[federationv1alpha1.AnnotationAddressTypes] != "member-1=LoadBalancer" {
		t.Errorf("metadata %v %v", imp.Labels, imp.Annotations)
	}
}

func TestImportReadyCondition(t *testing.T) {
	dual, _ := Merge([]Export{export("member-1", 0, withIPs("10.0.0.1", "fd00::1"))})
	v4, _ := Merge([]Export{export("member-1", 0)})
	headless, _ := Merge([]Export{export("member-1", 0, asHeadless())})
	for _, tc := range []struct {
		name   string
		r      Result
		cs     ClusterSetIP
		status metav1.ConditionStatus
		reason string
		says   string
	}{
		{"headless", headless, ClusterSetIP{}, "True", "Ready", "DNS answers"},
		{"every family", dual, ClusterSetIP{IPs: []string{"10.202.0.1", "fd00:202::1"}}, "True", "Ready", "cluster-set IP 10.202.0.1, fd00:202::1 (IPv4,IPv6)"},
		{"one family", v4, ClusterSetIP{IPs: []string{"10.202.0.1"}}, "True", "Ready", "10.202.0.1 (IPv4)"},
		{"no IP yet", v4, ClusterSetIP{}, "False", "Pending", "waiting for the cluster-set IP"},
		{"a family missing", dual, ClusterSetIP{IPs: []string{"10.202.0.1"}}, "False", "IPFamilyNotSupported", "IPv6 clients cannot use them"},
		{"refused", dual, ClusterSetIP{Refused: "spec.ipFamilies[0]: IPv6 not configured"}, "False", "IPFamilyNotSupported", "IPv6 not configured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ImportReadyCondition(tc.r, tc.cs)
			if c.Type != "Ready" || c.Status != tc.status || c.Reason != tc.reason || !strings.Contains(c.Message, tc.says) {
				t.Errorf("condition %s %s %q, want %s %s saying %q", c.Status, c.Reason, c.Message, tc.status, tc.reason, tc.says)
			}
		})
	}
}

func TestDerivedServiceV1beta1(t *testing.T) {
	for _, tc := range []struct {
		name     string
		exports  []Export
		policy   string
		families string
	}{
		{"both families: PreferDualStack in the member's order", []Export{export("member-1", 0, withIPs("10.0.0.1", "fd00::1"))}, "PreferDualStack", "none"},
		{"one family: that one", []Export{export("member-1", 0, withIPs("fd00::1"))}, "SingleStack", "IPv6"},
		{"no family yet: the member's default", []Export{export("member-1", 0, withIPs())}, "<nil>", "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := Merge(tc.exports)
			svc := DerivedService("ns", "web", r)
			policy := "<nil>"
			if svc.Spec.IPFamilyPolicy != nil {
				policy = string(*svc.Spec.IPFamilyPolicy)
			}
			if policy != tc.policy || familyWords(svc.Spec.IPFamilies) != tc.families {
				t.Errorf("policy %s families %v, want %s %s", policy, svc.Spec.IPFamilies, tc.policy, tc.families)
			}
		})
	}
	r, _ := Merge([]Export{export("member-1", 0, withITP("Local"), withTD("PreferClose"))})
	svc := DerivedService("ns", "web", r)
	if fmt.Sprint(*svc.Spec.InternalTrafficPolicy, " ", *svc.Spec.TrafficDistribution) != "Local PreferClose" {
		t.Errorf("derived Service itp %v td %v", *svc.Spec.InternalTrafficPolicy, *svc.Spec.TrafficDistribution)
	}
}

func TestUpdatedService(t *testing.T) {
	v6, _ := Merge([]Export{export("member-1", 0, withIPs("fd00::1"))})
	v4, _ := Merge([]Export{export("member-1", 0, withIPs("10.0.0.1"))})
	dual, _ := Merge([]Export{export("member-1", 0, withIPs("10.0.0.1", "fd00::1"))})
	allocated := func(r Result, ips ...string) *corev1.Service {
		s := DerivedService("ns", "web", r)
		s.Spec.ClusterIPs, s.Spec.IPFamilies = ips, familiesOfIPs(ips)
		s.Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyCluster)
		return s
	}
	if !ServiceMatches(allocated(dual, "10.202.0.1"), DerivedService("ns", "web", dual)) {
		t.Error("a PreferDualStack Service given one family by a single-stack member does not match")
	}
	if _, recreate := UpdatedService(allocated(v4, "10.202.0.1"), DerivedService("ns", "web", v6)); !recreate {
		t.Error("IPv4 to IPv6: the primary family changes, the Service must be recreated")
	}
	down, recreate := UpdatedService(allocated(dual, "10.202.0.1", "fd00:202::1"), DerivedService("ns", "web", v4))
	if recreate || !reflect.DeepEqual(down.Spec.ClusterIPs, []string{"10.202.0.1"}) || *down.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		t.Errorf("dual to IPv4: recreate %v, %+v, want an update down to the IPv4 IP", recreate, down.Spec)
	}
	up, recreate := UpdatedService(allocated(v4, "10.202.0.1"), DerivedService("ns", "web", dual))
	if recreate || *up.Spec.IPFamilyPolicy != corev1.IPFamilyPolicyPreferDualStack || familyWords(up.Spec.IPFamilies) != "IPv4" {
		t.Errorf("IPv4 to dual: recreate %v, %+v, want PreferDualStack keeping IPv4", recreate, up.Spec)
	}
}

func TestMatchesAnnotationsExactButTerm(t *testing.T) {
	r, _ := Merge([]Export{export("member-1", 0, withAnnotations("note", "x"))})
	want := DesiredImport("ns", "web", r, ClusterSetIP{IPs: []string{"10.202.0.9"}})
	have := want.DeepCopy()
	have.Annotations[federationv1alpha1.AnnotationLeaderTerm] = "3"
	if !ImportSpecMatches(have, want) {
		t.Error("an import with a term annotation does not match")
	}
	r2, _ := Merge([]Export{export("member-1", 0)})
	if ImportSpecMatches(have, DesiredImport("ns", "web", r2, ClusterSetIP{IPs: []string{"10.202.0.9"}})) {
		t.Error("an import keeping an annotation no longer exported matches")
	}
	if got := UpdatedAnnotations(have.Annotations, map[string]string{"a": "b"}); !reflect.DeepEqual(got, map[string]string{"a": "b", federationv1alpha1.AnnotationLeaderTerm: "3"}) {
		t.Errorf("UpdatedAnnotations = %v", got)
	}
	have.Status.Conditions[0].LastTransitionTime = metav1.Now()
	have.Status.Conditions = append(have.Status.Conditions, metav1.Condition{Type: "Other"})
	if !ImportStatusMatches(have, want) {
		t.Error("an import status differing in transition times and others' conditions does not match")
	}
	have.Status.EndpointSliceObjects = ""
	if ImportStatusMatches(have, want) {
		t.Error("an import status without endpointSliceObjects matches")
	}
}
