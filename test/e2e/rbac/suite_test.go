package rbac

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/install"
	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	framework.Main(m, 1, &clusters)
}

// cluster is the one API server of the package.
const cluster = "member-1"

// userNamespace stands for the namespaces of the cluster's users, where
// no Role of the release applies.
const userNamespace = "team-a"

// chartValues turn every role on, with agentless enforcement and the
// policy controller's own TLS Secret it needs, and the console: every
// account and grant the chart can render.
func chartValues() (map[string]any, error) {
	return install.Values(install.Roles, install.ValuesFile{Name: "agentless", Data: []byte(
		"cloud:\n  agentless: true\npolicyController:\n  tls:\n    secretName: policy-distribution-tls\nconsole:\n  enabled: true\n")})
}

var installed struct {
	sync.Once
	err error
}

// installChart applies the chart, rendered by pkg/install with chartValues,
// to the cluster once per package run, and waits until the API server
// authorizes what its roles grant.
func installChart(t *testing.T) {
	t.Helper()
	installed.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
		defer cancel()
		installed.err = installAll(ctx, clusters.Config(t, cluster))
	})
	if installed.err != nil {
		t.Fatalf("installing the chart: %v", installed.err)
	}
}

// installAll installs the chart as `antreaplus install` does (pkg/install,
// every role on), makes the cluster a supervisor's member (its
// ClusterMembership, which the federation manager and the DNS server read
// by name) and a user's namespace, and waits for the API server to
// authorize what the chart's roles grant.
func installAll(ctx context.Context, cfg *rest.Config) error {
	values, err := chartValues()
	if err != nil {
		return err
	}
	res, err := install.Install(ctx, cfg, install.Options{Values: values})
	if err != nil {
		return fmt.Errorf("installing the chart: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: userNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", userNamespace, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	mapper, err := discoveryMapper(cfg)
	if err != nil {
		return err
	}
	m := membership()
	ri, err := resourceOf(dyn, mapper, m)
	if err != nil {
		return err
	}
	if _, err := ri.Create(ctx, m, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the ClusterMembership: %w", err)
	}
	return waitForRBAC(ctx, cfg, res.Rendering)
}

// membership is the cluster's identity as a supervisor's: what the
// federation manager and the DNS server read by name.
func membership() *unstructured.Unstructured {
	return object("federation.antreaplus.io/v1alpha1", "ClusterMembership", membershipName,
		"spec", map[string]any{"clusterID": cluster, "federationID": "rbac", "supervisor": true})
}

// discoveryMapper maps kinds and resources to the cluster's API as cfg's
// user discovers it.
func discoveryMapper(cfg *rest.Config) (*restmapper.DeferredDiscoveryRESTMapper, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), nil
}

// resourceOf is the client of o's resource, in o's namespace if it has one.
func resourceOf(dyn dynamic.Interface, mapper meta.RESTMapper, o *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvk := o.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return dyn.Resource(m.Resource).Namespace(o.GetNamespace()), nil
	}
	return dyn.Resource(m.Resource), nil
}

// object is an object of a kind, with top-level fields (key, value, ...).
func object(apiVersion, kind, name string, fields ...any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	o.SetName(name)
	for i := 0; i+1 < len(fields); i += 2 {
		o.Object[fields[i].(string)] = fields[i+1] //nolint:forcetypeassert // keys are literals of this package
	}
	return o
}

// waitForRBAC waits until the API server authorizes every account what the
// rendered roles bound to it grant: its authorizer follows the roles and
// bindings asynchronously.
func waitForRBAC(ctx context.Context, cfg *rest.Config, r *install.Rendering) error {
	want, err := boundPermissions(r)
	if err != nil {
		return err
	}
	clients := map[string]kubernetes.Interface{}
	for sa := range want {
		clients[sa] = clientFor(cfg, sa)
	}
	for {
		var missing []string
		for sa, perms := range want {
			got, err := review(ctx, clients[sa], federationv1alpha1.SystemNamespace)
			if err != nil {
				return err
			}
			for p := range perms {
				if !got[p] {
					missing = append(missing, sa+" "+p.String())
				}
			}
		}
		if len(missing) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			slices.Sort(missing)
			return fmt.Errorf("the API server does not authorize what the chart's roles grant: %s", strings.Join(missing, "; "))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// boundPermissions are the permissions the rendered roles give each
// ServiceAccount they are bound to, as seen in antreaplus-system.
func boundPermissions(r *install.Rendering) (map[string]map[permission]bool, error) {
	roles := map[string][]rbacv1.PolicyRule{}
	for _, o := range r.Objects {
		if o.GetKind() == "ClusterRole" || o.GetKind() == "Role" {
			var role rbacv1.ClusterRole
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role); err != nil {
				return nil, fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
			}
			roles[o.GetKind()+"/"+o.GetName()] = role.Rules
		}
	}
	out := map[string]map[permission]bool{}
	for _, o := range r.Objects {
		if o.GetKind() != "ClusterRoleBinding" && o.GetKind() != "RoleBinding" {
			continue
		}
		var b rbacv1.ClusterRoleBinding
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &b); err != nil {
			return nil, fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
		}
		rules, ok := roles[b.RoleRef.Kind+"/"+b.RoleRef.Name]
		if !ok {
			return nil, errors.New(o.GetKind() + " " + o.GetName() + " refers to a role the chart does not render")
		}
		for _, s := range b.Subjects {
			if s.Kind != rbacv1.ServiceAccountKind || s.Namespace != federationv1alpha1.SystemNamespace {
				return nil, fmt.Errorf("%s %s binds %s %s/%s: only the release's ServiceAccounts are checked", o.GetKind(), o.GetName(), s.Kind, s.Namespace, s.Name)
			}
			if out[s.Name] == nil {
				out[s.Name] = map[permission]bool{}
			}
			for _, rule := range rules {
				for _, p := range expand(rule.Verbs, rule.APIGroups, rule.Resources, rule.ResourceNames) {
					out[s.Name][p] = true
				}
			}
		}
	}
	return out, nil
}

// serviceAccountUser is the user name of a ServiceAccount of the release.
func serviceAccountUser(sa string) string {
	return "system:serviceaccount:" + federationv1alpha1.SystemNamespace + ":" + sa
}

// impersonating is cfg acting as a ServiceAccount of the release (the API
// server adds the account's groups, as for its token).
func impersonating(cfg *rest.Config, sa string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{UserName: serviceAccountUser(sa)}
	return c
}

// clientFor is a client acting as a ServiceAccount of the release.
func clientFor(cfg *rest.Config, sa string) kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(impersonating(cfg, sa))
}
