package install_test

import (
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/pkg/install"
	"antreaplus.io/antreaplus/test/framework"
)

// The cluster tests install into one real cluster, one test at a time:
// each starts from a cluster without a release and leaves it so.

var clusters *framework.Clusters

func TestMain(m *testing.M) { framework.Main(m, 1, &clusters) }

const clusterName = "member-1"

// released lists every object of the chart's kinds labelled as the
// release's, whoever manages it now, and the namespace and the chart's
// CRDs when present: what an uninstall must leave none of.
func released(t *testing.T, cl client.Client) []string {
	t.Helper()
	kinds, err := install.ChartKinds("v1.34.4")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, gvk := range kinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := cl.List(t.Context(), l, client.MatchingLabels{install.InstanceLabel: install.ReleaseName}); err != nil {
			t.Fatalf("listing %ss: %v", gvk.Kind, err)
		}
		for i := range l.Items {
			l.Items[i].SetGroupVersionKind(gvk)
			out = append(out, install.Ref(&l.Items[i]))
		}
	}
	r, err := install.Render(install.RenderOptions{KubeVersion: "v1.34.4"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range append([]*unstructured.Unstructured{install.NamespaceObject()}, r.CRDs...) {
		if exists(t, cl, o) {
			out = append(out, install.Ref(o))
		}
	}
	slices.Sort(out)
	return out
}

// exists says whether an object like o is in the cluster.
func exists(t *testing.T, cl client.Client, o *unstructured.Unstructured) bool {
	t.Helper()
	have := &unstructured.Unstructured{}
	have.SetGroupVersionKind(o.GroupVersionKind())
	err := cl.Get(t.Context(), client.ObjectKeyFromObject(o), have)
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("reading %s: %v", install.Ref(o), err)
	}
	return err == nil
}

// refsOf names objects as progress does, sorted.
func refsOf(objs []*unstructured.Unstructured) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = install.Ref(o)
	}
	slices.Sort(out)
	return out
}

// render renders the chart for roles as install.Install does.
func render(t *testing.T, roles ...install.Role) *install.Rendering {
	t.Helper()
	v, err := install.Values(roles)
	if err != nil {
		t.Fatal(err)
	}
	r, err := install.Render(install.RenderOptions{Values: v, KubeVersion: "v1.34.4"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// added are the objects of b that a lacks.
func added(a, b *install.Rendering) []string {
	var out []string
	for _, o := range b.Objects {
		if !slices.Contains(refsOf(a.Objects), install.Ref(o)) {
			out = append(out, install.Ref(o))
		}
	}
	slices.Sort(out)
	return out
}

// deploymentsOf counts the Deployments of a rendering.
func deploymentsOf(r *install.Rendering) int {
	n := 0
	for _, o := range r.Objects {
		if o.GetKind() == "Deployment" {
			n++
		}
	}
	return n
}
