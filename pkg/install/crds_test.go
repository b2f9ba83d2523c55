package install

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func crdWith(deleting bool, conditions ...any) *unstructured.Unstructured {
	o := object("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "tiers.crd.antrea.io")
	o.Object["status"] = map[string]any{"conditions": conditions}
	if deleting {
		now := metav1.Now()
		o.SetDeletionTimestamp(&now)
	}
	return o
}

func TestEstablished(t *testing.T) {
	crd := func(conditions ...any) *unstructured.Unstructured { return crdWith(false, conditions...) }
	for _, c := range []struct {
		name string
		crd  *unstructured.Unstructured
		ok   bool
		why  string
	}{
		{"established", crd(map[string]any{"type": "NamesAccepted", "status": "True"}, map[string]any{"type": "Established", "status": "True"}), true, ""},
		{"not yet", crd(), false, "no Established condition yet"},
		{"names refused", crd(map[string]any{"type": "NamesAccepted", "status": "False", "message": "plural in use"}), false, "names not accepted: plural in use"},
	} {
		if ok, why := established(c.crd); ok != c.ok || why != c.why {
			t.Errorf("%s: established = %t, %q; want %t, %q", c.name, ok, why, c.ok, c.why)
		}
	}
}

func TestStuckDeleting(t *testing.T) {
	failed := map[string]any{"type": "Terminating", "status": "True", "reason": "InstanceDeletionFailed",
		"message": "could not list instances: storage is (re)initializing"}
	deleting := map[string]any{"type": "Terminating", "status": "True", "reason": "InstanceDeletionInProgress"}
	for _, c := range []struct {
		name string
		crd  *unstructured.Unstructured
		want bool
	}{
		{"its instances could not be listed", crdWith(true, failed), true},
		{"deleting its instances", crdWith(true, deleting), false},
		{"not being deleted", crdWith(false, failed), false},
		{"another kind", object("v1", "Namespace", "", "antreaplus-system"), false},
	} {
		if got := stuckDeleting(c.crd); got != c.want {
			t.Errorf("%s: stuckDeleting = %t, want %t", c.name, got, c.want)
		}
	}
}
