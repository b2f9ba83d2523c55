package rbac

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// caller makes requests as a ServiceAccount of the release.
type caller struct {
	account string
	kube    kubernetes.Interface
	dyn     dynamic.Interface
	mapper  meta.RESTMapper
	// admin is the cluster's admin: it issues the account's token and
	// finds a Node.
	admin *rest.Config
}

func newCaller(t *testing.T, sa string, mapper meta.RESTMapper) *caller {
	t.Helper()
	admin := clusters.Config(t, cluster)
	cfg := impersonating(admin, sa)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &caller{account: sa, kube: kubernetes.NewForConfigOrDie(cfg), dyn: dyn, mapper: mapper, admin: admin}
}

// newMapper maps kinds and resources to the cluster's API as its admin
// discovers it.
func newMapper(t *testing.T) meta.RESTMapper {
	t.Helper()
	m, err := discoveryMapper(clusters.Config(t, cluster))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// call is one request, described for failures.
type call struct {
	what string
	do   func(ctx context.Context, c *caller) error
}

// refusedByRBAC: the API server answered 403 because the user may not
// (its authorizer says "<user> cannot <verb> ..."), not because an
// admission plugin or a missing object stopped the request.
func refusedByRBAC(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(err.Error(), " cannot ")
}

func where(ns string) string {
	if ns == "" {
		return "cluster-wide"
	}
	return "in " + ns
}

// resource is the client of a resource ("secrets", "leases.coordination.k8s.io")
// in namespace ns ("": every namespace, or a cluster-scoped resource).
func (c *caller) resource(groupResource, ns string) (dynamic.ResourceInterface, error) {
	gvr, err := c.mapper.ResourceFor(schema.ParseGroupResource(groupResource).WithVersion(""))
	if err != nil {
		return nil, err
	}
	if ns == "" {
		return c.dyn.Resource(gvr), nil
	}
	return c.dyn.Resource(gvr).Namespace(ns), nil
}

var dryRun = []string{metav1.DryRunAll}

func list(groupResource, ns string) call {
	return call{what: "list " + groupResource + " " + where(ns), do: func(ctx context.Context, c *caller) error {
		ri, err := c.resource(groupResource, ns)
		if err != nil {
			return err
		}
		_, err = ri.List(ctx, metav1.ListOptions{Limit: 1})
		return err
	}}
}

// listNamed lists one cluster-scoped object by name, as an informer of
// that object alone does.
func listNamed(groupResource, name string) call {
	return call{what: "list " + groupResource + " named " + name, do: func(ctx context.Context, c *caller) error {
		ri, err := c.resource(groupResource, "")
		if err != nil {
			return err
		}
		l, err := ri.List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
		if err == nil && len(l.Items) != 1 {
			err = fmt.Errorf("%d objects, want the one named %s", len(l.Items), name)
		}
		return err
	}}
}

func get(groupResource, ns, name string) call {
	return call{what: "get " + groupResource + " " + name + " " + where(ns), do: func(ctx context.Context, c *caller) error {
		ri, err := c.resource(groupResource, ns)
		if err != nil {
			return err
		}
		_, err = ri.Get(ctx, name, metav1.GetOptions{})
		return err
	}}
}

// create creates o in ns, as a dry run.
func create(ns string, o *unstructured.Unstructured) call {
	return call{what: "create " + o.GetKind() + " " + o.GetName() + " " + where(ns), do: func(ctx context.Context, c *caller) error {
		o := o.DeepCopy()
		o.SetNamespace(ns)
		ri, err := resourceOf(c.dyn, c.mapper, o)
		if err != nil {
			return err
		}
		_, err = ri.Create(ctx, o, metav1.CreateOptions{DryRun: dryRun})
		return err
	}}
}

// update replaces o in ns, as a dry run (refused before the object is
// looked up).
func update(ns string, o *unstructured.Unstructured) call {
	return call{what: "update " + o.GetKind() + " " + o.GetName() + " " + where(ns), do: func(ctx context.Context, c *caller) error {
		o := o.DeepCopy()
		o.SetNamespace(ns)
		ri, err := resourceOf(c.dyn, c.mapper, o)
		if err != nil {
			return err
		}
		_, err = ri.Update(ctx, o, metav1.UpdateOptions{DryRun: dryRun})
		return err
	}}
}

// remove deletes an object, as a dry run.
func remove(groupResource, ns, name string) call {
	return call{what: "delete " + groupResource + " " + name + " " + where(ns), do: func(ctx context.Context, c *caller) error {
		ri, err := c.resource(groupResource, ns)
		if err != nil {
			return err
		}
		return ri.Delete(ctx, name, metav1.DeleteOptions{DryRun: dryRun})
	}}
}

// bindClusterAdmin binds cluster-admin to the caller itself: with a
// ClusterRoleBinding, or with a RoleBinding in ns.
func bindClusterAdmin(ns string) call {
	kind := "ClusterRoleBinding"
	if ns != "" {
		kind = "RoleBinding"
	}
	return call{what: "bind cluster-admin to itself " + where(ns), do: func(ctx context.Context, c *caller) error {
		b := object("rbac.authorization.k8s.io/v1", kind, "rbac-probe",
			"roleRef", map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
			"subjects", []any{map[string]any{"kind": "ServiceAccount", "name": c.account, "namespace": federationv1alpha1.SystemNamespace}})
		return create(ns, b).do(ctx, c)
	}}
}

// impersonate sends a request as user, authenticated with the account's
// own token: the API server first asks whether the account may
// impersonate.
func impersonate(user string) call {
	return call{what: "impersonate " + user, do: func(ctx context.Context, c *caller) error {
		admin, err := kubernetes.NewForConfig(c.admin)
		if err != nil {
			return err
		}
		tr, err := admin.CoreV1().ServiceAccounts(federationv1alpha1.SystemNamespace).CreateToken(ctx, c.account,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("issuing a token of %s: %w", c.account, err)
		}
		cfg := rest.AnonymousClientConfig(c.admin)
		cfg.BearerToken = tr.Status.Token
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		_, err = cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{Limit: 1})
		return err
	}}
}

// tokenOf asks for a token of another ServiceAccount, as a dry run.
func tokenOf(ns, sa string) call {
	return call{what: "create a token of " + ns + "/" + sa, do: func(ctx context.Context, c *caller) error {
		_, err := c.kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}},
			metav1.CreateOptions{DryRun: dryRun})
		return err
	}}
}

// nodeProxy reaches a Node's kubelet API through the API server.
func nodeProxy() call {
	return call{what: "get nodes/proxy (a kubelet's API)", do: func(ctx context.Context, c *caller) error {
		admin, err := kubernetes.NewForConfig(c.admin)
		if err != nil {
			return err
		}
		nodes, err := admin.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return err
		}
		if len(nodes.Items) == 0 {
			return errors.New("the cluster has no Node")
		}
		return c.kube.CoreV1().RESTClient().Get().Resource("nodes").Name(nodes.Items[0].Name).SubResource("proxy").Suffix("healthz").Do(ctx).Error()
	}}
}
