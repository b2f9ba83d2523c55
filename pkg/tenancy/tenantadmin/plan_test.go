package tenantadmin

import (
	"maps"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/install"
)

func TestNamespaceLabels(t *testing.T) {
	for _, c := range []struct {
		name        string
		have        map[string]string
		dedicated   bool
		extra       map[string]string
		want        map[string]string
		wantChanged []string
	}{
		{name: "new", want: map[string]string{"tenancy.antreaplus.io/tenant": "true"},
			wantChanged: []string{"tenancy.antreaplus.io/tenant=true"}},
		{name: "new, dedicated, labelled", dedicated: true, extra: map[string]string{"env": "prod"},
			want:        map[string]string{"tenancy.antreaplus.io/tenant": "true", "tenancy.antreaplus.io/controller": "alpha", "env": "prod"},
			wantChanged: []string{"env=prod", "tenancy.antreaplus.io/controller=alpha", "tenancy.antreaplus.io/tenant=true"}},
		{name: "as it should be", have: map[string]string{"tenancy.antreaplus.io/tenant": "true", "kubernetes.io/metadata.name": "alpha"},
			want: map[string]string{"tenancy.antreaplus.io/tenant": "true", "kubernetes.io/metadata.name": "alpha"}},
		{name: "an existing Namespace becomes a tenant", have: map[string]string{"team": "a"},
			want: map[string]string{"team": "a", "tenancy.antreaplus.io/tenant": "true"}, wantChanged: []string{"tenancy.antreaplus.io/tenant=true"}},
		{name: "a dedicated tenant keeps its controller", have: map[string]string{"tenancy.antreaplus.io/tenant": "true", "tenancy.antreaplus.io/controller": "alpha"},
			want: map[string]string{"tenancy.antreaplus.io/tenant": "true", "tenancy.antreaplus.io/controller": "alpha"}},
		{name: "a label changes", have: map[string]string{"tenancy.antreaplus.io/tenant": "true", "env": "dev"}, extra: map[string]string{"env": "prod"},
			want: map[string]string{"tenancy.antreaplus.io/tenant": "true", "env": "prod"}, wantChanged: []string{"env=prod"}},
		{name: "another instance's tenant becomes dedicated", have: map[string]string{"tenancy.antreaplus.io/tenant": "true", "tenancy.antreaplus.io/controller": "other"},
			dedicated: true, want: map[string]string{"tenancy.antreaplus.io/tenant": "true", "tenancy.antreaplus.io/controller": "alpha"},
			wantChanged: []string{"tenancy.antreaplus.io/controller=alpha"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := maps.Clone(c.have)
			got, changed := NamespaceLabels(c.have, "alpha", c.dedicated, c.extra)
			if !maps.Equal(got, c.want) || !slices.Equal(changed, c.wantChanged) {
				t.Errorf("got %v %v, want %v %v", got, changed, c.want, c.wantChanged)
			}
			if !maps.Equal(c.have, before) {
				t.Errorf("changed its argument: %v", c.have)
			}
		})
	}
}

func TestAdminSubjects(t *testing.T) {
	user := func(n string) rbacv1.Subject {
		return rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: n}
	}
	group := func(n string) rbacv1.Subject {
		return rbacv1.Subject{Kind: "Group", APIGroup: rbacv1.GroupName, Name: n}
	}
	for _, c := range []struct {
		name          string
		have          []rbacv1.Subject
		users, groups []string
		want          []rbacv1.Subject
		wantAdded     []string
	}{
		{name: "none"},
		{name: "new", users: []string{"alice", "carol"}, groups: []string{"team-a"},
			want: []rbacv1.Subject{user("alice"), user("carol"), group("team-a")}, wantAdded: []string{"User alice", "User carol", "Group team-a"}},
		{name: "again", have: []rbacv1.Subject{user("alice")}, users: []string{"alice"}, want: []rbacv1.Subject{user("alice")}},
		{name: "one more, duplicates once", have: []rbacv1.Subject{user("alice")}, users: []string{"bob", "alice", "bob"},
			want: []rbacv1.Subject{user("alice"), user("bob")}, wantAdded: []string{"User bob"}},
		{name: "a user and a group of one name", have: []rbacv1.Subject{user("ops")}, groups: []string{"ops"},
			want: []rbacv1.Subject{user("ops"), group("ops")}, wantAdded: []string{"Group ops"}},
		{name: "nothing removed", have: []rbacv1.Subject{user("alice"), group("team-a")}, users: []string{"bob"},
			want: []rbacv1.Subject{user("alice"), group("team-a"), user("bob")}, wantAdded: []string{"User bob"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, added := AdminSubjects(c.have, c.users, c.groups)
			if !slices.Equal(got, c.want) || !slices.Equal(added, c.wantAdded) {
				t.Errorf("got %v %v, want %v %v", got, added, c.want, c.wantAdded)
			}
		})
	}
}

func TestCheckBinding(t *testing.T) {
	ok := &rbacv1.RoleBinding{RoleRef: AdminRoleRef()}
	if err := CheckBinding(ok); err != nil {
		t.Errorf("the tenant's binding: %v", err)
	}
	other := &rbacv1.RoleBinding{RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"}}
	other.Namespace, other.Name = "alpha", tenancyv1alpha1.AdminBinding
	if err := CheckBinding(other); err == nil || !strings.Contains(err.Error(), "binds ClusterRole cluster-admin") {
		t.Errorf("a binding to cluster-admin: %v", err)
	}
}

func TestTenancyArgs(t *testing.T) {
	tail := []string{"--tenancy-instance=alpha", "--tenant-selector=tenancy.antreaplus.io/controller=alpha"}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{name: "none", want: tail},
		{name: "the chart's", args: []string{"--metrics-bind-address=:8080", "--v=0", "--leader-election-namespace=antreaplus-system"},
			want: append([]string{"--metrics-bind-address=:8080", "--v=0", "--leader-election-namespace=antreaplus-system"}, tail...)},
		{name: "the shared instance's tenancy and leader election go", args: []string{"--leader-elect", "--tenant-selector=!tenancy.antreaplus.io/controller",
			"--tenancy-instance=shared", "--v=2"}, want: append([]string{"--v=2"}, tail...)},
		{name: "values as separate arguments", args: []string{"--tenant-selector", "env=prod", "-tenancy-instance", "x", "--poll-timeout=2m"},
			want: append([]string{"--poll-timeout=2m"}, tail...)},
		{name: "a boolean flag keeps its neighbour", args: []string{"--leader-elect", "--v=1"}, want: append([]string{"--v=1"}, tail...)},
		{name: "leader-elect=false", args: []string{"--leader-elect=false"}, want: tail},
		{name: "agentless enforcement is kept", args: []string{"--policy-server=https://pc:8443", "--policy-token-file", "/var/run/t"},
			want: append([]string{"--policy-server=https://pc:8443", "--policy-token-file", "/var/run/t"}, tail...)},
		{name: "a flag named like one", args: []string{"--tenant-selector-extra=1"}, want: append([]string{"--tenant-selector-extra=1"}, tail...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := TenancyArgs(c.args, "alpha"); !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// installedCloudController is the cloud controller's Deployment as the
// chart renders it, with two replicas (leader election) and extra args.
func installedCloudController(t *testing.T) *appsv1.Deployment {
	t.Helper()
	values, err := install.Values([]install.Role{install.RoleMember, install.RoleCloud})
	if err != nil {
		t.Fatal(err)
	}
	values["cloudController"] = map[string]any{"replicas": 2, "extraArgs": []any{"--tenant-selector=!tenancy.antreaplus.io/controller"}}
	r, err := install.Render(install.RenderOptions{Values: values})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range r.Objects {
		if o.GetKind() == "Deployment" && o.GetName() == tenancyv1alpha1.CloudControllerDeployment {
			d := &appsv1.Deployment{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, d); err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatal("the chart renders no cloud controller")
	return nil
}

func TestDedicatedDeployment(t *testing.T) {
	installed := installedCloudController(t)
	before := installed.DeepCopy()
	d, err := DedicatedDeployment(installed, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "antreaplus-cloud-controller-alpha" || d.Namespace != "antreaplus-system" {
		t.Errorf("named %s/%s", d.Namespace, d.Name)
	}
	for _, labels := range []map[string]string{d.Labels, d.Spec.Template.Labels} {
		if labels["app.kubernetes.io/managed-by"] != tenancyv1alpha1.ManagedByTenancy || labels["tenancy.antreaplus.io/instance"] != "alpha" ||
			labels["app.kubernetes.io/instance"] != "antreaplus" || labels["app.kubernetes.io/component"] != "cloud-controller" {
			t.Errorf("labels %v", labels)
		}
	}
	wantSelector := maps.Clone(installed.Spec.Selector.MatchLabels)
	wantSelector["tenancy.antreaplus.io/instance"] = "alpha"
	if !maps.Equal(d.Spec.Selector.MatchLabels, wantSelector) {
		t.Errorf("selector %v, want %v", d.Spec.Selector.MatchLabels, wantSelector)
	}
	for k, v := range d.Spec.Selector.MatchLabels {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("the Pods lack the selector's %s=%s", k, v)
		}
	}
	args := d.Spec.Template.Spec.Containers[0].Args
	if slices.Contains(args, "--leader-elect") || slices.Contains(args, "--tenant-selector=!tenancy.antreaplus.io/controller") ||
		!slices.Equal(args[len(args)-2:], []string{"--tenancy-instance=alpha", "--tenant-selector=tenancy.antreaplus.io/controller=alpha"}) {
		t.Errorf("args %q", args)
	}
	if *d.Spec.Replicas != 2 || d.Spec.Template.Spec.ServiceAccountName != tenancyv1alpha1.CloudControllerDeployment ||
		d.Spec.Template.Spec.Containers[0].Image != installed.Spec.Template.Spec.Containers[0].Image {
		t.Errorf("not a copy: replicas %d, account %s", *d.Spec.Replicas, d.Spec.Template.Spec.ServiceAccountName)
	}
	if !equalDeployments(installed, before) {
		t.Error("changed the installed Deployment")
	}
	if !DeploymentUpToDate(d.DeepCopy(), d) {
		t.Error("not up to date with itself")
	}
	have := d.DeepCopy()
	have.Labels["added-by-someone"] = "x"
	if !DeploymentUpToDate(have, d) {
		t.Error("a label more makes it outdated")
	}
	for name, change := range map[string]func(*appsv1.Deployment){
		"scaled":            func(h *appsv1.Deployment) { h.Spec.Replicas = ptr.To[int32](5) },
		"another image":     func(h *appsv1.Deployment) { h.Spec.Template.Spec.Containers[0].Image = "x:y" },
		"a label lost":      func(h *appsv1.Deployment) { delete(h.Labels, "app.kubernetes.io/managed-by") },
		"another arguments": func(h *appsv1.Deployment) { h.Spec.Template.Spec.Containers[0].Args = nil },
	} {
		h := d.DeepCopy()
		change(h)
		if DeploymentUpToDate(h, d) {
			t.Errorf("%s: up to date", name)
		}
	}
	if _, err := DedicatedDeployment(&appsv1.Deployment{}, "alpha"); err == nil {
		t.Error("a Deployment without containers copied")
	}
}

func equalDeployments(a, b *appsv1.Deployment) bool {
	return DeploymentUpToDate(a, b) && DeploymentUpToDate(b, a) && maps.Equal(a.Labels, b.Labels)
}
