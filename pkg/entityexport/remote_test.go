package entityexport

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestDesired(t *testing.T) {
	src := Source{ClusterID: "member-1", Labels: map[string]string{"region": "eu"}}
	vm := entity("nic-a", map[string]string{"cloud.antreaplus.io/kind": "VirtualMachine", "tier": "web"}, func(e *antreav1alpha2.ExternalEntity) {
		e.Spec.Endpoints = []antreav1alpha2.Endpoint{{IP: "10.0.0.5", Name: "eni-1"}, {IP: "", Name: "no-ip"}, {IP: "2001:db8::5", Name: strings.Repeat("n", 254)}}
		e.Spec.Ports = []antreav1alpha2.NamedPort{{Protocol: corev1.ProtocolTCP, Port: 443, Name: "https"}, {Port: 0, Name: "none"},
			{Protocol: corev1.ProtocolUDP, Port: 53, Name: "a-very-long-port-name"}}
		e.Spec.ExternalNode = "agentless"
	})
	svc := entity("svc-db", map[string]string{"cloud.antreaplus.io/kind": "CloudNativeService", "tier": "db"})
	got := Desired(src, []federationv1alpha1.EntityExport{export("all", nil)}, []antreav1alpha2.ExternalEntity{svc, vm})
	if len(got) != 2 || got[0].Name != "member-1.nic-a" || got[1].Name != "member-1.svc-db" {
		t.Fatalf("Desired = %d entities %v", len(got), got)
	}
	want := federationv1alpha1.RemoteEntitySpec{
		SourceCluster: "member-1", SourceName: "nic-a", Kind: "VirtualMachine",
		Endpoints: []federationv1alpha1.RemoteEndpoint{{IP: "10.0.0.5", Name: "eni-1"}, {IP: "2001:db8::5"}},
		Ports:     []federationv1alpha1.RemotePort{{Protocol: "TCP", Port: 443, Name: "https"}, {Protocol: "UDP", Port: 53}},
	}
	a := got[0]
	if a.Namespace != "shop" || !equality.Semantic.DeepEqual(a.Spec, want) {
		t.Errorf("RemoteEntity %s/%s spec\n %+v\nwant\n %+v", a.Namespace, a.Name, a.Spec, want)
	}
	if a.Labels["member.federation.antreaplus.io/region"] != "eu" || a.Labels["federation.antreaplus.io/source-cluster"] != "member-1" || a.Labels["tier"] != "web" {
		t.Errorf("labels %v", a.Labels)
	}
	if got[1].Spec.Kind != "CloudNativeService" {
		t.Errorf("kind of svc-db = %q", got[1].Spec.Kind)
	}
}

func TestMatches(t *testing.T) {
	src := Source{ClusterID: "member-1", Labels: map[string]string{"region": "eu"}}
	e := entity("nic-a", map[string]string{"tier": "web"})
	want := DesiredEntity(src, &e)
	tests := []struct {
		name   string
		change func(*federationv1alpha1.RemoteEntity)
		want   bool
	}{
		{name: "the same", change: func(*federationv1alpha1.RemoteEntity) {}, want: true},
		{name: "another leader's term and other annotations", want: true, change: func(r *federationv1alpha1.RemoteEntity) {
			r.Annotations = map[string]string{"federation.antreaplus.io/leader-term": "7", "note": "x"}
			r.ResourceVersion, r.UID = "42", "uid"
		}},
		{name: "nil and empty lists are the same", want: true, change: func(r *federationv1alpha1.RemoteEntity) { r.Spec.Ports = []federationv1alpha1.RemotePort{} }},
		{name: "an endpoint's IP changed", change: func(r *federationv1alpha1.RemoteEntity) { r.Spec.Endpoints[0].IP = "10.0.0.2" }},
		{name: "an endpoint more", change: func(r *federationv1alpha1.RemoteEntity) {
			r.Spec.Endpoints = append(r.Spec.Endpoints, federationv1alpha1.RemoteEndpoint{IP: "10.0.0.3"})
		}},
		{name: "a label changed", change: func(r *federationv1alpha1.RemoteEntity) { r.Labels["tier"] = "db" }},
		{name: "a label more", change: func(r *federationv1alpha1.RemoteEntity) { r.Labels["extra"] = "x" }},
		{name: "the member labels changed", change: func(r *federationv1alpha1.RemoteEntity) { delete(r.Labels, "member.federation.antreaplus.io/region") }},
		{name: "the kind changed", change: func(r *federationv1alpha1.RemoteEntity) { r.Spec.Kind = "VirtualMachine" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have := want.DeepCopy()
			tt.change(have)
			if got := Matches(have, want); got != tt.want {
				t.Errorf("Matches = %t, want %t", got, tt.want)
			}
		})
	}
}

func TestRemoteAddresses(t *testing.T) {
	for _, tc := range []struct {
		name, annotation string
		want             int
	}{
		{"none", "", 0},
		{"not JSON", "{", 0},
		{"classified", `[{"ip":"10.0.1.5","kind":"Private","network":"aws.vpc-a"},{"ip":"198.51.100.7","kind":"Egress","via":"nat-0a"}]`, 2},
		{"a bad IP and an unknown kind left out", `[{"ip":"10.0.1.x","kind":"Private"},{"ip":"10.0.1.6","kind":"Secret"},{"ip":"203.0.113.1","kind":"Public"}]`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &antreav1alpha2.ExternalEntity{}
			e.Name, e.Namespace = "nic-a", "shop"
			e.Annotations = map[string]string{federationv1alpha1.AnnotationAddresses: tc.annotation}
			e.Labels = map[string]string{federationv1alpha1.LabelNetwork: "aws.vpc-a"}
			got := DesiredEntity(Source{ClusterID: "member-1"}, e)
			if len(got.Spec.Addresses) != tc.want || got.Spec.Network != "aws.vpc-a" {
				t.Errorf("addresses %v network %q; want %d addresses in aws.vpc-a", got.Spec.Addresses, got.Spec.Network, tc.want)
			}
		})
	}
}
