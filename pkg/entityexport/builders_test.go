package entityexport

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// Builders with functional modifiers, so each test case says only what matters to it.

type entityMod func(*antreav1alpha2.ExternalEntity)

// entity is an ExternalEntity of Namespace shop with the given labels.
func entity(name string, labels map[string]string, mods ...entityMod) antreav1alpha2.ExternalEntity {
	e := antreav1alpha2.ExternalEntity{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: labels},
		Spec: antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: "10.0.0.1", Name: name}}}}
	for _, m := range mods {
		m(&e)
	}
	return e
}

func inNamespace(ns string) entityMod {
	return func(e *antreav1alpha2.ExternalEntity) { e.Namespace = ns }
}

func deleting() entityMod {
	return func(e *antreav1alpha2.ExternalEntity) { now := metav1.Now(); e.DeletionTimestamp = &now }
}

type exportMod func(*federationv1alpha1.EntityExport)

// export is an EntityExport of Namespace shop selecting matchLabels.
func export(name string, matchLabels map[string]string, mods ...exportMod) federationv1alpha1.EntityExport {
	e := federationv1alpha1.EntityExport{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Generation: 1},
		Spec: federationv1alpha1.EntityExportSpec{ExternalEntitySelector: metav1.LabelSelector{MatchLabels: matchLabels}}}
	for _, m := range mods {
		m(&e)
	}
	return e
}

func exportIn(ns string) exportMod {
	return func(e *federationv1alpha1.EntityExport) { e.Namespace = ns }
}

func expression(key string, op metav1.LabelSelectorOperator, values ...string) exportMod {
	return func(e *federationv1alpha1.EntityExport) {
		e.Spec.ExternalEntitySelector.MatchExpressions = append(e.Spec.ExternalEntitySelector.MatchExpressions,
			metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values})
	}
}

func exportDeleting() exportMod {
	return func(e *federationv1alpha1.EntityExport) { now := metav1.Now(); e.DeletionTimestamp = &now }
}

func keys(entities []antreav1alpha2.ExternalEntity) []string {
	out := []string{}
	for _, e := range entities {
		out = append(out, e.Namespace+"/"+e.Name)
	}
	return out
}
