package entityimport

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestEntityChanged(t *testing.T) {
	base := &antreav1alpha2.ExternalEntity{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"role": "web"},
		Annotations: map[string]string{federationv1alpha1.AnnotationAddresses: `[{"ip":"198.51.100.7","kind":"Egress","via":"nat-0a"}]`}},
		Spec: antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: "10.0.1.5"}}}}
	for _, tc := range []struct {
		name string
		mod  func(*antreav1alpha2.ExternalEntity)
		want bool
	}{
		{"nothing", func(*antreav1alpha2.ExternalEntity) {}, false},
		{"another annotation", func(e *antreav1alpha2.ExternalEntity) { e.Annotations["note"] = "x" }, false},
		{"its NAT gateway's new address", func(e *antreav1alpha2.ExternalEntity) {
			e.Annotations[federationv1alpha1.AnnotationAddresses] = `[{"ip":"198.51.100.8","kind":"Egress","via":"nat-0b"}]`
		}, true},
		{"a label", func(e *antreav1alpha2.ExternalEntity) { e.Labels["role"] = "db" }, true},
		{"an endpoint", func(e *antreav1alpha2.ExternalEntity) { e.Spec.Endpoints[0].IP = "10.0.1.6" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed := base.DeepCopy()
			tc.mod(changed)
			if got := entityChanged(base, changed); got != tc.want {
				t.Errorf("entityChanged = %v, want %v", got, tc.want)
			}
		})
	}
}
