package install_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/install"
)

// versions are the resourceVersions of the release's objects and record.
func versions(t *testing.T, cl client.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	kinds, err := install.ChartKinds("v1.34.4")
	if err != nil {
		t.Fatal(err)
	}
	for _, gvk := range kinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := cl.List(t.Context(), l, client.MatchingLabels{install.InstanceLabel: install.ReleaseName}); err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			out[gvk.Kind+" "+o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
		}
	}
	return out
}

// TestUninstallInFederation: a cluster with a ClusterMembership is refused
// uninstall, which changes nothing, unless forced.
func TestUninstallInFederation(t *testing.T) {
	cfg := clusters.Config(t, clusterName)
	cl := clusters.Client(t, clusterName)
	if _, err := install.Install(t.Context(), cfg, install.Options{}); err != nil {
		t.Fatal(err)
	}
	m := &federationv1alpha1.ClusterMembership{
		ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName},
		Spec:       federationv1alpha1.ClusterMembershipSpec{ClusterID: "member-1", FederationID: "acme"},
	}
	if err := cl.Create(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.WithoutCancel(t.Context()), m) })
	before := released(t, cl)

	_, err := install.Uninstall(t.Context(), cfg, install.UninstallOptions{})
	if !errors.Is(err, install.ErrInFederation) || !strings.Contains(err.Error(), "federation acme") || !strings.Contains(err.Error(), "antreaplus federation leave") {
		t.Errorf("error %v, want one naming the federation and saying to leave it", err)
	}
	if after := released(t, cl); !slices.Equal(before, after) {
		t.Errorf("a refused uninstall changed the cluster: before %v, after %v", before, after)
	}

	res, err := install.Uninstall(t.Context(), cfg, install.UninstallOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Left) != 0 || res.Deleted == 0 {
		t.Errorf("forced: %d deleted, left %v", res.Deleted, res.Left)
	}
	r := render(t, install.RoleMember)
	if got, want := released(t, cl), refsOf(r.CRDs); !slices.Equal(got, want) {
		t.Errorf("after uninstall without --crds the cluster holds %v, want the CRDs only", got)
	}
}

// TestEnsureRoles: what federation create and join --install do.
func TestEnsureRoles(t *testing.T) {
	cfg := clusters.Config(t, clusterName)
	t.Cleanup(func() {
		_, _ = install.Uninstall(context.WithoutCancel(t.Context()), cfg, install.UninstallOptions{Force: true})
	})

	had, res, err := install.EnsureRoles(t.Context(), cfg, install.Options{Roles: []install.Role{install.RoleMember}, Values: map[string]any{"logVerbosity": 3}})
	if err != nil || had != nil || res == nil || res.Release.Revision != 1 {
		t.Fatalf("without a release: had %v, result %+v, %v; want an install", had, res, err)
	}
	had, res, err = install.EnsureRoles(t.Context(), cfg, install.Options{Roles: []install.Role{install.RoleMember}})
	if err != nil || had == nil || res != nil {
		t.Fatalf("with the roles: had %v, result %+v, %v; want nothing done", had, res, err)
	}
	_, res, err = install.EnsureRoles(t.Context(), cfg, install.Options{Roles: []install.Role{install.RoleMember, install.RoleSupervisor}})
	if err != nil || res == nil {
		t.Fatalf("adding a role: result %+v, %v; want an upgrade", res, err)
	}
	if r := res.Release; r.Revision != 2 || !slices.Equal(r.Roles, []install.Role{install.RoleMember, install.RoleSupervisor}) || r.Values["logVerbosity"] != 3.0 {
		t.Errorf("upgraded to %+v; want revision 2, member and supervisor, the values kept", r)
	}
}

// TestLifecycle installs a member, upgrades it to a supervisor and back,
// is refused bad values, and uninstalls with the CRDs; each step counted
// against the renderings and the cluster's objects. It runs last: deleting
// the CRDs makes the next install create them again, which costs the API
// server most of a run.
func TestLifecycle(t *testing.T) {
	cfg := clusters.Config(t, clusterName)
	cl := clusters.Client(t, clusterName)
	member, supervisor := render(t, install.RoleMember), render(t, install.RoleMember, install.RoleSupervisor)
	t.Cleanup(func() {
		_, _ = install.Uninstall(context.WithoutCancel(t.Context()), cfg, install.UninstallOptions{Force: true})
	})

	t.Run("install a member", func(t *testing.T) {
		var out bytes.Buffer
		res, err := install.Install(t.Context(), cfg, install.Options{Roles: []install.Role{install.RoleMember}, Wait: true, Progress: &out})
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		t.Logf("installed in %s: %d created, %d configured, %d unchanged", res.Duration, res.Created, res.Configured, res.Unchanged)
		applied := 1 + len(member.CRDs) + len(member.Objects) // and the namespace
		if n := res.Created + res.Configured + res.Unchanged; n != applied || res.Created < len(member.Objects) || res.Pruned != 0 {
			t.Errorf("%d created, %d configured, %d unchanged, %d pruned; want %d applied, the chart's %d objects created, none pruned",
				res.Created, res.Configured, res.Unchanged, res.Pruned, applied, len(member.Objects))
		}
		for _, o := range member.Objects {
			if !strings.Contains(out.String(), "created "+install.Ref(o)+"\n") {
				t.Errorf("no line says %s was created", install.Ref(o))
			}
		}
		if n := strings.Count(out.String(), "  available Deployment "); n != deploymentsOf(member) {
			t.Errorf("%d Deployments waited for, want %d:\n%s", n, deploymentsOf(member), out.String())
		}
		want := append(refsOf(member.All()), install.Ref(install.NamespaceObject()), install.Ref(install.ReleaseObject()))
		slices.Sort(want)
		if got := released(t, cl); !slices.Equal(got, want) {
			t.Errorf("the cluster holds\n%v\nwant\n%v", got, want)
		}
		rel, err := install.ReadRelease(t.Context(), cfg)
		if err != nil || rel == nil || rel.Revision != 1 || !slices.Equal(rel.Roles, []install.Role{install.RoleMember}) || rel.ChartVersion != member.ChartVersion {
			t.Errorf("release %+v (%v), want revision 1 of a member, chart %s", rel, err, member.ChartVersion)
		}
	})

	t.Run("install again is refused", func(t *testing.T) {
		_, err := install.Install(t.Context(), cfg, install.Options{})
		if !errors.Is(err, install.ErrInstalled) || !strings.Contains(err.Error(), "antreaplus upgrade") {
			t.Errorf("error %v, want one saying to upgrade", err)
		}
	})

	t.Run("upgrade without changes", func(t *testing.T) {
		res, err := install.Upgrade(t.Context(), cfg, install.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Created+res.Configured+res.Pruned != 0 || res.Release.Revision != 2 {
			t.Errorf("%d created, %d configured, %d pruned at revision %d; want nothing changed at revision 2", res.Created, res.Configured, res.Pruned, res.Release.Revision)
		}
	})

	extra := added(member, supervisor)
	t.Run("upgrade to a supervisor", func(t *testing.T) {
		res, err := install.Upgrade(t.Context(), cfg, install.Options{Roles: []install.Role{install.RoleSupervisor}})
		if err != nil {
			t.Fatal(err)
		}
		if len(extra) == 0 || res.Created != len(extra) || res.Pruned != 0 || !slices.Equal(res.Release.Roles, []install.Role{install.RoleMember, install.RoleSupervisor}) {
			t.Errorf("%d created, %d pruned, roles %v; want the supervisor's %d objects %v created", res.Created, res.Pruned, res.Release.Roles, len(extra), extra)
		}
		if !slices.Contains(released(t, cl), "Deployment antreaplus-system/antreaplus-federation-manager") {
			t.Error("no federation manager")
		}
	})

	t.Run("upgrade back to a member prunes the supervisor's objects", func(t *testing.T) {
		var out bytes.Buffer
		res, err := install.Upgrade(t.Context(), cfg, install.Options{Roles: []install.Role{install.RoleMember}, Progress: &out})
		if err != nil {
			t.Fatal(err)
		}
		if res.Pruned != len(extra) || res.Created != 0 {
			t.Errorf("%d pruned, %d created; want the supervisor's %d objects pruned:\n%s", res.Pruned, res.Created, len(extra), out.String())
		}
		for _, o := range extra {
			if !strings.Contains(out.String(), "  pruned "+o+"\n") {
				t.Errorf("no line says %s was pruned", o)
			}
		}
		want := append(refsOf(member.All()), install.Ref(install.NamespaceObject()), install.Ref(install.ReleaseObject()))
		slices.Sort(want)
		if got := released(t, cl); !slices.Equal(got, want) {
			t.Errorf("the cluster holds\n%v\nwant\n%v", got, want)
		}
	})

	t.Run("bad values are refused and nothing changes", func(t *testing.T) {
		before := versions(t, cl)
		_, err := install.Upgrade(t.Context(), cfg, install.Options{Roles: []install.Role{install.RoleSupervisor}, Values: map[string]any{"federationManager": map[string]any{"replicas": 2}}})
		if err == nil || !strings.Contains(err.Error(), "federationManager.replicas must be 1") {
			t.Errorf("error %v, want the chart's message", err)
		}
		if after := versions(t, cl); !maps.Equal(before, after) {
			t.Errorf("objects changed:\nbefore %v\nafter  %v", before, after)
		}
	})

	t.Run("uninstall with the CRDs leaves nothing", func(t *testing.T) {
		var out bytes.Buffer
		res, err := install.Uninstall(t.Context(), cfg, install.UninstallOptions{CRDs: true, Progress: &out})
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		t.Logf("uninstalled in %s: %d deleted", res.Duration, res.Deleted)
		if want := len(member.All()) + 2; res.Deleted != want || len(res.Left) != 0 { // and the namespace and the record
			t.Errorf("%d deleted, left %v; want %d deleted, nothing left:\n%s", res.Deleted, res.Left, want, out.String())
		}
		if got := released(t, cl); len(got) != 0 {
			t.Errorf("left in the cluster: %v", got)
		}
	})
}

// BenchmarkInstall measures Install of a member into a cluster that has
// the CRDs, as `antreaplus install` does it (without --wait); the
// uninstall between installs is not timed. It reports the median too:
//
//	go test ./pkg/install -run '^$' -bench Install -benchtime 3x
func BenchmarkInstall(b *testing.B) {
	cfg := clusters.Config(b, clusterName)
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := install.Install(b.Context(), cfg, install.Options{}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		b.StopTimer()
		if _, err := install.Uninstall(b.Context(), cfg, install.UninstallOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	slices.Sort(times)
	b.ReportMetric(times[len(times)/2].Seconds(), "median-s/install")
}
