package serviceexport

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

const tcp, udp = corev1.ProtocolTCP, corev1.ProtocolUDP

func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		name      string
		exports   []Export
		wantType  mcsv1beta1.ServiceImportType
		wantPorts []mcsv1beta1.ServicePort
		order     []string // clusters in precedence order
		reason    string   // "" means NoConflicts
		details   []string // substrings of the conflict message
		affinity  corev1.ServiceAffinity
	}{
		{name: "one export", exports: []Export{export("member-1", 0)},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp)}, order: []string{"member-1"}},
		{name: "identical exports of different service types do not conflict",
			exports:  []Export{export("member-2", 0, withAddresses(AddressNodePort, map[string]int32{"http": 30080}, "10.0.0.1")), export("member-1", time.Second)},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp)}, order: []string{"member-2", "member-1"}},
		{name: "ports are the union, oldest first",
			exports: []Export{
				export("member-1", time.Second, withPorts(mport("metrics", 9090, tcp), mport("http", 80, tcp))),
				export("member-2", 0, withPorts(mport("http", 80, tcp), mport("dns", 53, udp))),
			},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp), mport("dns", 53, udp), mport("metrics", 9090, tcp)},
			order: []string{"member-2", "member-1"}, reason: "PortConflict", details: []string{
				`port "dns" 53/UDP is exported by member-2 but not by member-1: the import has it`,
				`port "metrics" 9090/TCP is exported by member-1 but not by member-2: the import has it`}},
		{name: "same ports in another order do not conflict",
			exports: []Export{
				export("member-1", 0, withPorts(mport("http", 80, tcp), mport("dns", 53, udp))),
				export("member-2", time.Second, withPorts(mport("dns", 53, udp), mport("http", 80, tcp))),
			},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp), mport("dns", 53, udp)}, order: []string{"member-1", "member-2"}},
		{name: "a port missing in one of three exports names the clusters",
			exports: []Export{
				export("member-1", 0, withPorts(mport("http", 80, tcp), mport("admin", 81, tcp))),
				export("member-2", time.Second, withPorts(mport("http", 80, tcp))),
				export("member-3", 2*time.Second, withPorts(mport("http", 80, tcp), mport("admin", 81, tcp))),
			},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp), mport("admin", 81, tcp)},
			order: []string{"member-1", "member-2", "member-3"}, reason: "PortConflict",
			details: []string{`port "admin" 81/TCP is exported by member-1, member-3 but not by member-2: the import has it`}},
		{name: "same name, other number: the oldest export's port is used",
			exports:  []Export{export("member-1", time.Minute, withPorts(mport("http", 8080, tcp))), export("member-3", 0, withPorts(mport("http", 80, tcp)))},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp)}, order: []string{"member-3", "member-1"},
			reason: "PortConflict", details: []string{`port "http" is 8080/TCP in member-1 but 80/TCP in member-3 (oldest export)`}},
		{name: "same name, other protocol conflicts",
			exports:  []Export{export("member-1", 0, withPorts(mport("dns", 53, udp))), export("member-2", time.Second, withPorts(mport("dns", 53, tcp)))},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("dns", 53, udp)}, order: []string{"member-1", "member-2"},
			reason: "PortConflict", details: []string{`port "dns" is 53/TCP in member-2 but 53/UDP in member-1`}},
		{name: "same number, other name: left out",
			exports:  []Export{export("member-1", 0, withPorts(mport("http", 80, tcp))), export("member-2", time.Second, withPorts(mport("web", 80, tcp), mport("admin", 81, tcp)))},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp), mport("admin", 81, tcp)}, order: []string{"member-1", "member-2"},
			reason: "PortConflict", details: []string{`port 80/TCP is named "web" in member-2 but "http" in member-1`}},
		{name: "same creation time: the lower cluster ID wins",
			exports:  []Export{export("member-2", 0, withPorts(mport("http", 80, tcp))), export("member-10", 0, withPorts(mport("http", 81, tcp)))},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 81, tcp)}, order: []string{"member-10", "member-2"},
			reason: "PortConflict"},
		{name: "headless oldest: the import is headless",
			exports:  []Export{export("member-1", time.Second), export("member-2", 0, asHeadless())},
			wantType: mcsv1beta1.Headless, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp)}, order: []string{"member-2", "member-1"},
			reason: "TypeConflict", details: []string{"member-1 exports a ClusterSetIP Service but member-2 (oldest export) a headless one"}},
		{name: "session affinity from the oldest",
			exports:  []Export{export("member-1", 0, withAffinity(corev1.ServiceAffinityClientIP)), export("member-2", time.Second)},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp)}, order: []string{"member-1", "member-2"},
			reason: "SessionAffinityConflict", affinity: corev1.ServiceAffinityClientIP},
		{name: "several conflicts: reasons joined by commas",
			exports:  []Export{export("member-1", 0), export("member-2", time.Second, asHeadless(), withPorts(mport("http", 8080, tcp)))},
			wantType: mcsv1beta1.ClusterSetIP, wantPorts: []mcsv1beta1.ServicePort{mport("http", 80, tcp)}, order: []string{"member-1", "member-2"},
			reason: "PortConflict,TypeConflict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := Merge(tc.exports)
			if !ok {
				t.Fatal("Merge found no export")
			}
			if r.Type != tc.wantType || !equalPorts(r.Ports, tc.wantPorts) {
				t.Errorf("type %s ports %v, want %s %v", r.Type, r.Ports, tc.wantType, tc.wantPorts)
			}
			var order []string
			for _, e := range r.Exports {
				order = append(order, e.Cluster)
			}
			if strings.Join(order, ",") != strings.Join(tc.order, ",") {
				t.Errorf("precedence %v, want %v", order, tc.order)
			}
			wantReason, wantStatus := tc.reason, metav1.ConditionTrue
			if wantReason == "" {
				wantReason, wantStatus = "NoConflicts", metav1.ConditionFalse
			}
			if r.Conflict.Type != "Conflict" || r.Conflict.Reason != wantReason || r.Conflict.Status != wantStatus {
				t.Errorf("conflict %+v, want %s %s", r.Conflict, wantStatus, wantReason)
			}
			for _, d := range tc.details {
				if !strings.Contains(r.Conflict.Message, d) {
					t.Errorf("conflict message %q does not say %q", r.Conflict.Message, d)
				}
			}
			if tc.affinity != "" && r.SessionAffinity != tc.affinity {
				t.Errorf("session affinity %s, want %s", r.SessionAffinity, tc.affinity)
			}
		})
	}
}

func TestMergeNothing(t *testing.T) {
	if _, ok := Merge(nil); ok {
		t.Error("Merge of no export returned an import")
	}
}

func TestMergeDoesNotReorderInput(t *testing.T) {
	in := []Export{export("member-2", time.Second), export("member-1", 0)}
	Merge(in)
	if in[0].Cluster != "member-2" {
		t.Error("Merge sorted its caller's slice")
	}
}

func equalPorts(a, b []mcsv1beta1.ServicePort) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Port != b[i].Port || a[i].Protocol != b[i].Protocol {
			return false
		}
	}
	return true
}
