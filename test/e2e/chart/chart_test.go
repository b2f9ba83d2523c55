package chart

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// TestAcceptedByAPIServer: the chart's CRDs, applied for real, then every
// other object of every case, applied with a server-side dry run, are all
// accepted by a real API server (schemas, defaulting, admission, RBAC's
// escalation check).
func TestAcceptedByAPIServer(t *testing.T) {
	first := render(t, cases[0])
	if len(first.crds) == 0 {
		t.Fatal("the chart renders no CRDs (--include-crds)")
	}
	installCRDs(t, first.crds)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := render(t, c)
			if len(r.crds) != len(first.crds) {
				t.Errorf("%d CRDs, want the chart's %d whatever the values", len(r.crds), len(first.crds))
			}
			a := newApplier(t)
			for _, o := range r.objects {
				if err := a.apply(t.Context(), o, true); err != nil {
					t.Errorf("refused: %v", err)
				}
			}
		})
	}
}

// TestLint: helm lint --strict passes for every case.
func TestLint(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, err := runHelm(t, "lint", releaseNamespace, c.values, "--strict")
			if err != nil {
				t.Fatalf("helm lint --strict: %v", err)
			}
			if s := string(out); strings.Contains(s, "[WARNING]") || strings.Contains(s, "[ERROR]") {
				t.Errorf("helm lint --strict:\n%s", s)
			}
		})
	}
}

// TestRefusedValues: values the programs cannot run with fail the render,
// saying why.
func TestRefusedValues(t *testing.T) {
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			ns := r.namespace
			if ns == "" {
				ns = releaseNamespace
			}
			_, err := runHelm(t, "template", ns, r.values)
			var he *helmError
			if !errors.As(err, &he) || !strings.Contains(he.output, r.want) {
				t.Errorf("helm template: %v, want a failure saying %q", err, r.want)
			}
		})
	}
}

// TestRBACIsTheGeneratedFiles: every Role and ClusterRole the chart renders
// has exactly the rules of files/rbac (written by `make generate` from the
// code's markers, and by pkg/federation/membership for the federation
// account), and is bound to the ServiceAccount of its component only. The
// personas, roles for people, are TestPersonas's.
func TestRBACIsTheGeneratedFiles(t *testing.T) {
	files := rbacFiles(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := render(t, c)
			for _, kind := range []string{"ClusterRole", "Role"} {
				for _, o := range r.byKind(kind) {
					if isPersona(o) {
						continue
					}
					want, ok := files[kind+"/"+o.GetName()]
					if !ok {
						t.Errorf("%s %s is in no file of files/rbac", kind, o.GetName())
						continue
					}
					var got, wantRole rbacv1.ClusterRole
					into(t, o, &got)
					into(t, want, &wantRole)
					if !equality.Semantic.DeepEqual(got.Rules, wantRole.Rules) {
						t.Errorf("%s %s: rules\n%v\nwant files/rbac's\n%v", kind, o.GetName(), got.Rules, wantRole.Rules)
					}
					checkBinding(t, r, kind, o.GetName(), c)
				}
			}
		})
	}
}

// checkBinding: the role is bound, once, to the account of its component.
func checkBinding(t *testing.T, r *rendering, kind, name string, c chartCase) {
	t.Helper()
	b := r.find(kind+"Binding", name)
	if b == nil {
		t.Errorf("%s %s is bound to no account", kind, name)
		return
	}
	var binding rbacv1.ClusterRoleBinding
	into(t, b, &binding)
	if binding.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: name}) {
		t.Errorf("%sBinding %s refers to %+v", kind, name, binding.RoleRef)
	}
	want := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: releaseNamespace}
	switch {
	case name == federationv1alpha1.SupervisorRole:
		want.Name = federationv1alpha1.FederationServiceAccount
	case name == "antreaplus-coredns" && !slices.Contains(c.deployments, "coredns"):
		want.Name, want.Namespace = "coredns", "kube-system" // dns.mode=corefile: the cluster's CoreDNS
	}
	if len(binding.Subjects) != 1 || binding.Subjects[0] != want {
		t.Errorf("%sBinding %s binds %+v, want only %+v", kind, name, binding.Subjects, want)
	}
}

// TestFederationAccount: a member gets the federation account join issues
// a token for, with the names join uses; a supervisor's also reads the
// registry.
func TestFederationAccount(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := render(t, c)
			if r.find("ServiceAccount", federationv1alpha1.FederationServiceAccount) == nil {
				t.Errorf("no ServiceAccount %s", federationv1alpha1.FederationServiceAccount)
			}
			if r.find("ClusterRole", federationv1alpha1.FederationClusterRole) == nil || r.find("Role", federationv1alpha1.FederationRole) == nil {
				t.Errorf("no ClusterRole %s and Role %s", federationv1alpha1.FederationClusterRole, federationv1alpha1.FederationRole)
			}
			supervisor := slices.Contains(c.deployments, "federation-manager")
			if got := r.find("Role", federationv1alpha1.SupervisorRole) != nil; got != supervisor {
				t.Errorf("Role %s rendered: %t, want %t (supervisor)", federationv1alpha1.SupervisorRole, got, supervisor)
			}
		})
	}
}

// TestDeployments: each case runs its components, each non-root with a
// read-only root filesystem and no capabilities, probed, from the default
// image of its program; with more than one replica, leader election and a
// PodDisruptionBudget.
func TestDeployments(t *testing.T) {
	appVersion := chartVersions(t).AppVersion
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := render(t, c)
			var got []string
			for _, o := range r.byKind("Deployment") {
				var d appsv1.Deployment
				into(t, o, &d)
				component := strings.TrimPrefix(d.Name, "antreaplus-")
				got = append(got, component)
				checkPod(t, &d, component, appVersion)
				replicated := *d.Spec.Replicas > 1
				if pdb := r.find("PodDisruptionBudget", d.Name) != nil; pdb != replicated {
					t.Errorf("%s: %d replicas, PodDisruptionBudget %t", d.Name, *d.Spec.Replicas, pdb)
				}
				elects := component != "coredns" && component != "federation-manager"
				if component == "cloud-controller" {
					elects = false // its replicas share the tenants by their claims
				}
				if le := slices.Contains(d.Spec.Template.Spec.Containers[0].Args, "--leader-elect"); le != (replicated && elects) {
					t.Errorf("%s: %d replicas, --leader-elect %t", d.Name, *d.Spec.Replicas, le)
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.deployments))
			if !slices.Equal(got, want) {
				t.Errorf("Deployments %v, want %v", got, want)
			}
		})
	}
}

func checkPod(t *testing.T, d *appsv1.Deployment, component, appVersion string) {
	t.Helper()
	pod := d.Spec.Template.Spec
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 65532 ||
		psc.SeccompProfile == nil || psc.SeccompProfile.Type != "RuntimeDefault" {
		t.Errorf("%s: pod security context %+v", d.Name, psc)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers", d.Name, len(pod.Containers))
	}
	ctr := pod.Containers[0]
	sc := ctr.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil ||
		*sc.AllowPrivilegeEscalation || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("%s: container security context %+v", d.Name, sc)
	}
	if ctr.LivenessProbe == nil || ctr.ReadinessProbe == nil || ctr.LivenessProbe.HTTPGet == nil || ctr.ReadinessProbe.HTTPGet == nil {
		t.Errorf("%s: probes %+v %+v", d.Name, ctr.LivenessProbe, ctr.ReadinessProbe)
	}
	if want := "registry.antreaplus.io/antreaplus/" + component + ":" + appVersion; ctr.Image != want {
		t.Errorf("%s: image %s, want %s", d.Name, ctr.Image, want)
	}
	if pod.ServiceAccountName != d.Name {
		t.Errorf("%s: runs as %s", d.Name, pod.ServiceAccountName)
	}
}

// chartMeta is what the tests read of Chart.yaml.
type chartMeta struct {
	Version    string `json:"version"`
	AppVersion string `json:"appVersion"`
}

func chartVersions(t *testing.T) chartMeta {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m chartMeta
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestChartVersion: Chart.yaml is the one place of the version: appVersion
// (the images' tag) is version with a leading "v".
func TestChartVersion(t *testing.T) {
	m := chartVersions(t)
	if m.Version == "" || m.AppVersion != "v"+m.Version {
		t.Errorf("Chart.yaml: version %q, appVersion %q: want appVersion = v<version>", m.Version, m.AppVersion)
	}
}
