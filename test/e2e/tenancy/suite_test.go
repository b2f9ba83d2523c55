package tenancy

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/cmd/antreaplus/cmd"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/install"
	"antreaplus.io/antreaplus/test/framework"
)

var clusters *framework.Clusters

func TestMain(m *testing.M) {
	framework.Main(m, 1, &clusters)
}

// cluster is the one API server of the package.
const cluster = "member-1"

// The people of the tests.
const (
	alice = "alice" // admin of tenant alpha
	bob   = "bob"   // admin of tenant beta
	carol = "carol" // cloud admin: antreaplus-cloud-admin, cluster-wide
	dave  = "dave"  // cluster-admin persona: creates and deletes tenants
	erin  = "erin"  // Kubernetes's edit in alpha
	frank = "frank" // Kubernetes's view in alpha
)

// asDave is the kubeconfig context that impersonates dave.
const asDave = "as-dave"

var setup struct {
	sync.Once
	kubeconfig string
	err        error
}

// prepare installs the chart (roles member and cloud) as `antreaplus
// install` does, creates the tenants alpha (admin alice) and beta (admin
// bob) with the CLI, binds the other personas, writes a kubeconfig with a
// context impersonating dave, and waits until the API server authorizes
// every binding. Once per package run.
func prepare(t *testing.T) string {
	t.Helper()
	setup.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 2*time.Minute)
		defer cancel()
		setup.kubeconfig, setup.err = prepareCluster(t, ctx)
	})
	if setup.err != nil {
		t.Fatalf("preparing the cluster: %v", setup.err)
	}
	return setup.kubeconfig
}

func prepareCluster(t *testing.T, ctx context.Context) (string, error) {
	t.Helper()
	cfg := clusters.Config(t, cluster)
	if _, err := install.Install(ctx, cfg, install.Options{Roles: []install.Role{install.RoleMember, install.RoleCloud}}); err != nil {
		return "", fmt.Errorf("installing the chart: %w", err)
	}
	kubeconfig, err := writeKubeconfig()
	if err != nil {
		return "", err
	}
	for _, args := range [][]string{
		{"tenant", "create", "alpha", "--admin-user", alice, "--context", cluster},
		{"tenant", "create", "beta", "--admin-user", bob, "--context", cluster, "--label", "team=b"},
	} {
		if out, err := antreaplus(kubeconfig, args...); err != nil {
			return "", fmt.Errorf("antreaplus %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	c := adminClient(t)
	subject := func(user string) []rbacv1.Subject {
		return []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	}
	ref := func(name string) rbacv1.RoleRef {
		return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}
	}
	for _, o := range []client.Object{
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-cloud-admin"}, RoleRef: ref("antreaplus-cloud-admin"), Subjects: subject(carol)},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "test-cluster-admin"}, RoleRef: ref("antreaplus-cluster-admin"), Subjects: subject(dave)},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: "test-cluster-admin"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "antreaplus-cluster-admin"}, Subjects: subject(dave)},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "alpha", Name: "test-edit"}, RoleRef: ref("edit"), Subjects: subject(erin)},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "alpha", Name: "test-view"}, RoleRef: ref("view"), Subjects: subject(frank)},
	} {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("binding %s: %w", o.GetName(), err)
		}
	}
	// The authorizer follows bindings, and the aggregation controller the
	// aggregated roles, asynchronously.
	for _, w := range []struct{ user, verb, group, resource, ns string }{
		{alice, "create", "cloud.antreaplus.io", "cloudprovideraccounts", "alpha"},
		{bob, "create", "cloud.antreaplus.io", "cloudprovideraccounts", "beta"},
		{carol, "create", "cloud.antreaplus.io", "cloudprovideraccounts", "beta"},
		{dave, "create", "", "namespaces", ""},
		{dave, "list", "coordination.k8s.io", "leases", federationv1alpha1.SystemNamespace},
		{erin, "create", "policy.antreaplus.io", "federatednetworkpolicies", "alpha"},
		{frank, "list", "cloud.antreaplus.io", "virtualmachines", "alpha"},
	} {
		if err := waitAllowed(ctx, cfg, w.user, w.verb, w.group, w.resource, w.ns); err != nil {
			return "", err
		}
	}
	return kubeconfig, nil
}

// writeKubeconfig is the sandbox's kubeconfig with one more context,
// asDave: member-1's credentials impersonating dave.
func writeKubeconfig() (string, error) {
	raw, err := clientcmd.LoadFromFile(clusters.Sandbox.KubeconfigPath())
	if err != nil {
		return "", err
	}
	ctx, ok := raw.Contexts[cluster]
	if !ok {
		return "", fmt.Errorf("the sandbox's kubeconfig has no context %s", cluster)
	}
	user := raw.AuthInfos[ctx.AuthInfo].DeepCopy()
	user.Impersonate, user.ImpersonateGroups = dave, []string{"system:authenticated"}
	raw.AuthInfos[asDave] = user
	asCtx := ctx.DeepCopy()
	asCtx.AuthInfo = asDave
	raw.Contexts[asDave] = asCtx
	// Next to the sandbox's, removed with it.
	path := filepath.Join(filepath.Dir(clusters.Sandbox.KubeconfigPath()), "tenancy-kubeconfig")
	return path, clientcmd.WriteToFile(*raw, path)
}

// antreaplus runs the CLI in process with a kubeconfig, and returns what
// it printed.
func antreaplus(kubeconfig string, args ...string) (string, error) {
	var out bytes.Buffer
	root := cmd.NewRoot(&out, &out)
	root.SetArgs(append(args, "--kubeconfig", kubeconfig))
	err := root.Execute()
	return out.String(), err
}

// waitAllowed waits until the API server authorizes user (with the group
// every authenticated user has) verb on resource in ns.
func waitAllowed(ctx context.Context, cfg *rest.Config, user, verb, group, resource, ns string) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: []string{"system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Namespace: ns}}}
	for {
		r, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if r.Status.Allowed {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s may still not %s %s in %q: %s", user, verb, resource, ns, r.Status.Reason)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// adminClient is a client of the cluster's administrator.
func adminClient(t *testing.T) client.Client {
	t.Helper()
	return clusters.Client(t, cluster)
}

// clientAs is a client acting as user, with the group every authenticated
// user has.
func clientAs(t *testing.T, user string) client.Client {
	t.Helper()
	cfg := clusters.Config(t, cluster)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
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

// refusedByRBAC: the API server answered 403 because the user may not
// ("<user> cannot <verb> ..."), not for another reason.
func refusedByRBAC(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(err.Error(), " cannot ")
}
