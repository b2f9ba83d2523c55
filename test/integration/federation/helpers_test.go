package federation

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/test/framework"
)

const timeout = 2 * time.Minute

// cl returns a membership.Cluster for a test cluster.
func cl(t *testing.T, name string) membership.Cluster {
	t.Helper()
	return membership.Cluster{Name: name, Config: clusters.Config(t, name)}
}

func all(t *testing.T) []membership.Cluster {
	t.Helper()
	var out []membership.Cluster
	for _, n := range clusters.Names {
		out = append(out, cl(t, n))
	}
	return out
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// logWriter sends progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// reset removes every cluster from any federation, now and when the test ends.
func reset(t *testing.T) {
	t.Helper()
	leaveAll := func() error {
		// Also a clean-up, which runs after t.Context() is cancelled.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), timeout)
		defer cancel()
		for _, c := range all(t) {
			if err := membership.Leave(ctx, nil, c, all(t), true); err != nil {
				return fmt.Errorf("leaving %s: %w", c.Name, err)
			}
		}
		for _, n := range clusters.Names {
			namespaceGone(t, n)
		}
		return nil
	}
	if err := leaveAll(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := leaveAll(); err != nil {
			t.Error(err)
		}
	})
}

// form creates federation acme with member-1 as supervisor and joins member-2 and member-3.
func form(t *testing.T) {
	t.Helper()
	reset(t)
	ctx := testContext(t)
	sup := []membership.Cluster{cl(t, "member-1")}
	if err := membership.Create(ctx, logWriter{t}, "acme", sup, membership.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	for _, m := range []string{"member-2", "member-3"} {
		opts := membership.JoinOptions{Labels: map[string]string{"env": "test"}}
		if _, err := membership.Join(ctx, logWriter{t}, cl(t, m), "", sup, opts); err != nil {
			t.Fatalf("join %s: %v", m, err)
		}
	}
}

// registry lists the MemberClusters of a supervisor by cluster ID.
func registry(t *testing.T, supervisor string) map[string]federationv1alpha1.MemberCluster {
	t.Helper()
	list := &federationv1alpha1.MemberClusterList{}
	if err := clusters.Client(t, supervisor).List(t.Context(), list, client.InNamespace(federationv1alpha1.SystemNamespace)); err != nil {
		t.Fatalf("listing the registry of %s: %v", supervisor, err)
	}
	out := map[string]federationv1alpha1.MemberCluster{}
	for _, e := range list.Items {
		out[e.Spec.ClusterID] = e
	}
	return out
}

// identity returns a cluster's ClusterMembership, nil when it has none.
func identity(t *testing.T, name string) *federationv1alpha1.ClusterMembership {
	t.Helper()
	m, err := membership.Identity(t.Context(), cl(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// memberCredentials builds a client config from a member's registry entry
// and credential Secret in a supervisor: exactly what a federation manager uses.
func memberCredentials(t *testing.T, supervisor, clusterID string) *rest.Config {
	t.Helper()
	e, ok := registry(t, supervisor)[clusterID]
	if !ok {
		t.Fatalf("%s is not in the registry of %s", clusterID, supervisor)
	}
	s := &corev1.Secret{}
	key := client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: e.Spec.CredentialsSecretRef.Name}
	if err := clusters.Client(t, supervisor).Get(t.Context(), key, s); err != nil {
		t.Fatalf("reading the credentials of %s: %v", clusterID, err)
	}
	return &rest.Config{
		Host:            e.Spec.Server,
		BearerToken:     string(s.Data[federationv1alpha1.CredentialTokenKey]),
		TLSClientConfig: rest.TLSClientConfig{CAData: s.Data[federationv1alpha1.CredentialCAKey]},
	}
}

func clientFor(t *testing.T, cfg *rest.Config) client.Client {
	t.Helper()
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// managedObjects lists, in a cluster, every object of the kinds join
// creates that carries the managed-by label.
func managedObjects(t *testing.T, name string) []string {
	t.Helper()
	c := clusters.Client(t, name)
	managed := client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}
	lists := []client.ObjectList{
		&corev1.NamespaceList{}, &corev1.ServiceAccountList{}, &corev1.SecretList{},
		&rbacv1.RoleList{}, &rbacv1.RoleBindingList{}, &rbacv1.ClusterRoleList{}, &rbacv1.ClusterRoleBindingList{},
		&flowcontrolv1.FlowSchemaList{},
		&federationv1alpha1.ClusterMembershipList{}, &federationv1alpha1.MemberClusterList{},
	}
	var out []string
	for _, list := range lists {
		if err := c.List(t.Context(), list, managed); err != nil {
			t.Fatalf("listing %T in %s: %v", list, name, err)
		}
		items, _ := meta.ExtractList(list)
		for _, it := range items {
			o := it.(client.Object)
			out = append(out, fmt.Sprintf("%T %s", o, client.ObjectKeyFromObject(o)))
		}
	}
	return out
}

// namespaceGone waits until the federation namespace is deleted; reset
// calls it from a clean-up too, after t.Context() is cancelled.
func namespaceGone(t *testing.T, name string) {
	t.Helper()
	c := clusters.Client(t, name)
	// Two minutes: the namespace controller of a loaded cluster backs off
	// between its passes. A namespace still there says why (its phase and
	// conditions: what the controller could not delete or discover).
	framework.Eventually(t, 2*time.Minute, func() error {
		ns := &corev1.Namespace{}
		err := c.Get(context.WithoutCancel(t.Context()), client.ObjectKey{Name: federationv1alpha1.SystemNamespace}, ns)
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return fmt.Errorf("namespace %s of %s: %w", federationv1alpha1.SystemNamespace, name, err)
		}
		var why []string
		for _, c := range ns.Status.Conditions {
			if c.Status == corev1.ConditionTrue {
				why = append(why, fmt.Sprintf("%s: %s", c.Type, c.Message))
			}
		}
		return fmt.Errorf("namespace %s of %s still there, %s %v", federationv1alpha1.SystemNamespace, name, ns.Status.Phase, why)
	})
}

func mustContain(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want one containing %q", err, want)
	}
}
