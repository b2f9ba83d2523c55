package install

import (
	"slices"
	"strings"
	"testing"
)

func deployments(r *Rendering) []string {
	var out []string
	for _, o := range r.Objects {
		if o.GetKind() == "Deployment" {
			out = append(out, o.GetName())
		}
	}
	slices.Sort(out)
	return out
}

func TestRenderRoles(t *testing.T) {
	for _, c := range []struct {
		roles []string
		want  []string
	}{
		{nil, []string{"antreaplus-coredns", "antreaplus-member-controller", "antreaplus-policy-controller"}},
		{[]string{"member"}, []string{"antreaplus-coredns", "antreaplus-member-controller", "antreaplus-policy-controller"}},
		{[]string{"supervisor"}, []string{"antreaplus-coredns", "antreaplus-federation-manager", "antreaplus-member-controller", "antreaplus-policy-controller"}},
		{[]string{"cloud"}, []string{"antreaplus-cloud-controller", "antreaplus-coredns", "antreaplus-member-controller", "antreaplus-policy-controller"}},
		{[]string{"supervisor,cloud"}, []string{"antreaplus-cloud-controller", "antreaplus-coredns", "antreaplus-federation-manager", "antreaplus-member-controller", "antreaplus-policy-controller"}},
	} {
		t.Run(strings.Join(c.roles, "+"), func(t *testing.T) {
			roles, err := ParseRoles(c.roles)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Values(roles)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Render(RenderOptions{Values: v, KubeVersion: "v1.34.4"})
			if err != nil {
				t.Fatal(err)
			}
			if got := deployments(r); !slices.Equal(got, c.want) {
				t.Errorf("Deployments %v, want %v", got, c.want)
			}
			if len(r.CRDs) != 21 {
				t.Errorf("%d CRDs, want 21", len(r.CRDs))
			}
			for _, o := range r.All() {
				if o.GetKind() != "CustomResourceDefinition" && o.GetLabels()[ManagedByLabel] != ManagedBy {
					t.Errorf("%s %s: managed-by %q, want %q", o.GetKind(), o.GetName(), o.GetLabels()[ManagedByLabel], ManagedBy)
				}
			}
			if r.Notes == "" {
				t.Error("no notes")
			}
		})
	}
}

func TestRenderRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		values string
		want   string
	}{
		{"old cluster", "", "needs Kubernetes"},
		{"replicas", "federationManager:\n  replicas: 2\nsupervisor:\n  enabled: true\n", "replicas"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := Values(nil, ValuesFile{Name: "f.yaml", Data: []byte(c.values)})
			if err != nil {
				t.Fatal(err)
			}
			kube := "v1.34.4"
			if c.name == "old cluster" {
				kube = "v1.27.0"
			}
			_, err = Render(RenderOptions{Values: v, KubeVersion: kube})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one that says %q", err, c.want)
			}
		})
	}
}
