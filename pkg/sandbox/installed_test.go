package sandbox

import (
	"net/netip"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"antreaplus.io/antreaplus/pkg/install"
)

// TestSandboxValuesRender renders the chart as the as-installed sandbox
// installs a cloud supervisor: the values must be ones the chart accepts,
// and reach the Deployments they are for.
func TestSandboxValuesRender(t *testing.T) {
	p := ClusterPlan{Name: "member-1", DNS: DNSPlan{Addr: netip.MustParseAddr("127.0.53.1"), Port: 16743}}
	raw, err := yaml.Marshal(sandboxValues(p, true))
	if err != nil {
		t.Fatal(err)
	}
	values, err := install.Values([]install.Role{install.RoleMember, install.RoleSupervisor, install.RoleCloud},
		install.ValuesFile{Name: "sandbox", Data: raw})
	if err != nil {
		t.Fatal(err)
	}
	r, err := install.Render(install.RenderOptions{Values: values})
	if err != nil {
		t.Fatalf("the chart refuses the sandbox's values: %v", err)
	}
	deployments := map[string]*appsv1.Deployment{}
	for _, o := range r.Objects {
		if o.GetKind() != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d); err != nil {
			t.Fatal(err)
		}
		deployments[d.Spec.Template.Spec.Containers[0].Name] = &d
	}
	for _, c := range installedOrder {
		if deployments[c] == nil {
			t.Errorf("no Deployment of %s", c)
		}
	}
	if t.Failed() {
		return
	}
	cloud := deployments["cloud-controller"].Spec.Template.Spec
	if !slices.Contains(cloud.Containers[0].Args, "--cloud-ca-file="+cloudCAMount+"/ca.pem") {
		t.Errorf("cloud controller args %v lack the emulator's CA", cloud.Containers[0].Args)
	}
	if !slices.ContainsFunc(cloud.Volumes, func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == cloudCASecret }) {
		t.Errorf("cloud controller volumes %v lack Secret %s", cloud.Volumes, cloudCASecret)
	}
	policy := deployments["policy-controller"].Spec.Template.Spec
	if !slices.ContainsFunc(policy.Volumes, func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == policyTLSSecret }) {
		t.Errorf("policy controller volumes %v lack Secret %s", policy.Volumes, policyTLSSecret)
	}
	if got := *deployments["coredns"].Spec.Replicas; got != 1 {
		t.Errorf("DNS replicas %d, want 1 (the sandbox plays one Pod per Deployment)", got)
	}
}
