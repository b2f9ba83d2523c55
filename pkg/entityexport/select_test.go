package entityexport

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

func TestExported(t *testing.T) {
	web := map[string]string{"tier": "web", "cloud.antreaplus.io/kind": "VirtualMachine"}
	db := map[string]string{"tier": "db", "cloud.antreaplus.io/kind": "VirtualMachine"}
	entities := []antreav1alpha2.ExternalEntity{
		entity("nic-b", web), entity("nic-a", web), entity("nic-db", db),
		entity("nic-other", web, inNamespace("other")),
		entity("nic-gone", web, deleting()),
	}
	tests := []struct {
		name    string
		exports []federationv1alpha1.EntityExport
		want    []string
	}{
		{name: "no export, nothing", want: []string{}},
		{name: "one export, its Namespace only, sorted, none being deleted",
			exports: []federationv1alpha1.EntityExport{export("web", map[string]string{"tier": "web"})},
			want:    []string{"shop/nic-a", "shop/nic-b"}},
		{name: "two exports selecting the same entity: exported once",
			exports: []federationv1alpha1.EntityExport{export("web", map[string]string{"tier": "web"}), export("vms", map[string]string{"cloud.antreaplus.io/kind": "VirtualMachine"})},
			want:    []string{"shop/nic-a", "shop/nic-b", "shop/nic-db"}},
		{name: "empty selector: every entity of the Namespace",
			exports: []federationv1alpha1.EntityExport{export("all", nil)},
			want:    []string{"shop/nic-a", "shop/nic-b", "shop/nic-db"}},
		{name: "an export in each Namespace",
			exports: []federationv1alpha1.EntityExport{export("all", nil, exportIn("other")), export("db", map[string]string{"tier": "db"})},
			want:    []string{"other/nic-other", "shop/nic-db"}},
		{name: "matchExpressions",
			exports: []federationv1alpha1.EntityExport{export("not-web", nil, expression("tier", metav1.LabelSelectorOpNotIn, "web"))},
			want:    []string{"shop/nic-db"}},
		{name: "an invalid export exports nothing, a valid one still does",
			exports: []federationv1alpha1.EntityExport{export("bad", nil, expression("tier", "Equals", "db")), export("web", map[string]string{"tier": "web"})},
			want:    []string{"shop/nic-a", "shop/nic-b"}},
		{name: "an export being deleted exports nothing",
			exports: []federationv1alpha1.EntityExport{export("web", map[string]string{"tier": "web"}, exportDeleting())},
			want:    []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keys(Exported(tt.exports, entities)); !slices.Equal(got, tt.want) {
				t.Errorf("Exported = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSelectedCountsPerExport(t *testing.T) {
	entities := []antreav1alpha2.ExternalEntity{
		entity("nic-a", map[string]string{"tier": "web"}), entity("nic-b", map[string]string{"tier": "web"}),
		entity("nic-c", map[string]string{"tier": "db"}), entity("nic-d", map[string]string{"tier": "web"}, inNamespace("other")),
	}
	web, all := export("web", map[string]string{"tier": "web"}), export("all", nil)
	if got := len(Selected(&web, entities)); got != 2 {
		t.Errorf("web selects %d, want 2", got)
	}
	if got := len(Selected(&all, entities)); got != 3 {
		t.Errorf("all selects %d, want 3 (its Namespace only)", got)
	}
}
