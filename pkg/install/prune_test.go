package install

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func object(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	o.SetNamespace(namespace)
	o.SetName(name)
	return o
}

func TestStale(t *testing.T) {
	keep := []*unstructured.Unstructured{
		object("apps/v1", "Deployment", "antreaplus-system", "antreaplus-member-controller"),
		object("rbac.authorization.k8s.io/v1", "ClusterRole", "", "antreaplus-member-controller"),
	}
	live := []unstructured.Unstructured{
		*object("apps/v1", "Deployment", "antreaplus-system", "antreaplus-member-controller"),
		*object("apps/v1", "Deployment", "antreaplus-system", "antreaplus-federation-manager"),
		*object("rbac.authorization.k8s.io/v1", "ClusterRole", "", "antreaplus-member-controller"),
		*object("rbac.authorization.k8s.io/v1", "Role", "antreaplus-system", "antreaplus-member-controller"),
		*object("v1", "ConfigMap", "antreaplus-system", ReleaseConfigMap),
	}
	var got []string
	for _, o := range stale(live, keep) {
		got = append(got, ref(o))
	}
	want := []string{"Deployment antreaplus-system/antreaplus-federation-manager", "Role antreaplus-system/antreaplus-member-controller"}
	if !slices.Equal(got, want) {
		t.Errorf("stale = %v, want %v (never the release record)", got, want)
	}
}
