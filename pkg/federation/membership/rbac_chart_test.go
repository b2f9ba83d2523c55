package membership

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"antreaplus.io/antreaplus/test/datadriven"
)

// chartRBAC is where the chart (deploy/charts/antreaplus) reads the
// federation account's rules from.
const chartRBAC = "../../../deploy/charts/antreaplus/files/rbac"

// TestChartRBAC: the chart grants the federation account exactly what join
// grants, from files written from this package's rules (-rewrite writes
// them). federation.yaml: the ClusterRole and the Role of every member;
// federation-supervisor.yaml: the Role of supervisors.
func TestChartRBAC(t *testing.T) {
	roles, _ := accessObjects(true)
	cr := clusterRole()
	cr.TypeMeta = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"}
	for _, r := range roles {
		r.TypeMeta = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"}
		r.Labels = nil // the chart sets its own
	}
	cr.Labels = nil
	files := map[string][]any{
		"federation.yaml":            {cr, roles[0]},
		"federation-supervisor.yaml": {roles[1]},
	}
	for name, objs := range files {
		t.Run(name, func(t *testing.T) {
			want := rbacFile(t, objs)
			path := filepath.Join(chartRBAC, name)
			if datadriven.Rewriting() {
				if err := os.WriteFile(path, want, 0o644); err != nil { //nolint:gosec // a file of the repository
					t.Fatal(err)
				}
				return
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs from the federation account's rules (rbac.go): run 'go test ./pkg/federation/membership -run TestChartRBAC -rewrite'\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// rbacFile is objs as controller-gen writes the components' roles: each
// document after "---", without creationTimestamp.
func rbacFile(t *testing.T, objs []any) []byte {
	t.Helper()
	var b strings.Builder
	for _, o := range objs {
		raw, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(raw)
	}
	return []byte(strings.ReplaceAll(b.String(), "  creationTimestamp: null\n", ""))
}

// chartFlowSchema is where the chart reads the federation account's
// FlowSchema from.
const chartFlowSchema = "../../../deploy/charts/antreaplus/files/flowschema/federation-leases.yaml"

// TestChartFlowSchema: the chart installs the FlowSchema join writes, from
// a file written from flowschema.go (-rewrite writes it).
func TestChartFlowSchema(t *testing.T) {
	fs := flowSchema()
	fs.TypeMeta = metav1.TypeMeta{APIVersion: flowcontrolv1.SchemeGroupVersion.String(), Kind: "FlowSchema"}
	fs.Labels = nil // the chart sets its own
	want := rbacFile(t, []any{fs})
	if datadriven.Rewriting() {
		if err := os.MkdirAll(filepath.Dir(chartFlowSchema), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(chartFlowSchema, want, 0o644); err != nil { //nolint:gosec // a file of the repository
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(chartFlowSchema)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from flowschema.go: run 'go test ./pkg/federation/membership -run TestChartFlowSchema -rewrite'\ngot:\n%s\nwant:\n%s", chartFlowSchema, got, want)
	}
}
