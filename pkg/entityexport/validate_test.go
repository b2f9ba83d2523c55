package entityexport

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name       string
		export     exportMod
		valid      bool
		wantInMsg  string
		wantReason string
	}{
		{name: "matchLabels", export: func(e *federationv1alpha1.EntityExport) {}, valid: true, wantReason: ReasonValid},
		{name: "empty selector: everything", export: func(e *federationv1alpha1.EntityExport) { e.Spec.ExternalEntitySelector = metav1.LabelSelector{} }, valid: true, wantReason: ReasonValid},
		{name: "In with values", export: expression("tier", metav1.LabelSelectorOpIn, "web"), valid: true, wantReason: ReasonValid},
		{name: "unknown operator", export: expression("tier", "Equals", "web"), wantReason: ReasonInvalidSelector, wantInMsg: "spec.externalEntitySelector is invalid"},
		{name: "In without values", export: expression("tier", metav1.LabelSelectorOpIn), wantReason: ReasonInvalidSelector, wantInMsg: "matchLabels"},
		{name: "Exists with values", export: expression("tier", metav1.LabelSelectorOpExists, "web"), wantReason: ReasonInvalidSelector, wantInMsg: "nothing is exported"},
		{name: "bad label key", export: func(e *federationv1alpha1.EntityExport) {
			e.Spec.ExternalEntitySelector.MatchLabels = map[string]string{"a/b/c": "x"}
		}, wantReason: ReasonInvalidSelector},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := export("web-vms", map[string]string{"tier": "web"}, tt.export)
			v := Validate(&exp)
			if v.Valid != tt.valid || v.Reason != tt.wantReason || !strings.Contains(v.Message, tt.wantInMsg) {
				t.Errorf("Validate = %+v, want valid=%t reason %s message containing %q", v, tt.valid, tt.wantReason, tt.wantInMsg)
			}
		})
	}
}

func TestValidCondition(t *testing.T) {
	exp := export("web-vms", nil, func(e *federationv1alpha1.EntityExport) { e.Generation = 7 })
	bad := export("bad", nil, expression("tier", "Equals", "web"))
	tests := []struct {
		name       string
		exp        *federationv1alpha1.EntityExport
		selected   int
		wantStatus metav1.ConditionStatus
		wantInMsg  string
	}{
		{name: "valid, selecting", exp: &exp, selected: 3, wantStatus: metav1.ConditionTrue, wantInMsg: "status.exportedEntities"},
		{name: "valid, selecting nothing yet", exp: &exp, wantStatus: metav1.ConditionTrue, wantInMsg: "kubectl get externalentities -n shop --show-labels"},
		{name: "invalid", exp: &bad, wantStatus: metav1.ConditionFalse, wantInMsg: "is invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ValidCondition(tt.exp, Validate(tt.exp), tt.selected)
			if c.Type != "Valid" || c.Status != tt.wantStatus || c.ObservedGeneration != tt.exp.Generation || !strings.Contains(c.Message, tt.wantInMsg) {
				t.Errorf("condition = %+v, want status %s, generation %d, message containing %q", c, tt.wantStatus, tt.exp.Generation, tt.wantInMsg)
			}
		})
	}
}
