package policycli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/cmd/antreaplus/cmd"
	"antreaplus.io/antreaplus/test/framework"
)

// antreaplus runs the CLI in-process with the given kubeconfig.
func antreaplus(t *testing.T, kubeconfig string, args ...string) (stdout string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := cmd.NewRoot(&out, &errOut)
	root.SetArgs(append(args, "--kubeconfig", kubeconfig))
	start := time.Now()
	err = root.ExecuteContext(t.Context())
	t.Logf("antreaplus %s (%s): error %v\n%s%s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), err, errOut.String(), out.String())
	return out.String(), err
}

// withDeadContext writes the clusters' kubeconfig plus a context "dead"
// whose API server is a closed port of this host.
func withDeadContext(t *testing.T) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(clusters.Sandbox.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	live := cfg.Contexts["member-1"]
	dead := cfg.Clusters[live.Cluster].DeepCopy()
	dead.Server = "https://" + addr
	cfg.Clusters["dead"] = dead
	cfg.Contexts["dead"] = &clientcmdapi.Context{Cluster: "dead", AuthInfo: live.AuthInfo}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// asUser writes the clusters' kubeconfig with every context impersonating
// user (an authenticated user with no rights but those the test grants).
func asUser(t *testing.T, user string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(clusters.Sandbox.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate, a.ImpersonateGroups = user, []string{"system:authenticated"}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// removeCRD deletes a CRD from a cluster and waits until it is no longer served.
func removeCRD(t *testing.T, cluster, name string) {
	t.Helper()
	cl := clusters.Client(t, cluster)
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := cl.Delete(t.Context(), crd); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("deleting CRD %s from %s: %v", name, cluster, err)
	}
	framework.Eventually(t, time.Minute, func() error {
		err := cl.Get(t.Context(), client.ObjectKeyFromObject(crd), crd)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("CRD %s still there in %s (get: %w)", name, cluster, err)
	})
}

// join gives a cluster a ClusterMembership, as 'antreaplus federation join' would.
func join(t *testing.T, cluster, federationID, clusterID string) {
	t.Helper()
	cl := clusters.Client(t, cluster)
	m := &federationv1alpha1.ClusterMembership{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName},
		Spec: federationv1alpha1.ClusterMembershipSpec{FederationID: federationID, ClusterID: clusterID}}
	mustCreate(t, cl, m)
}

// mustCreate creates obj and deletes it when the test ends.
func mustCreate(t *testing.T, cl client.Client, obj client.Object) {
	t.Helper()
	if err := cl.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.WithoutCancel(t.Context()), obj) })
}

// spec is an Antrea policy spec: allow from every Pod of the Namespace to the web Pods.
func spec(priority float64) antreav1beta1.NetworkPolicySpec {
	allow := antreav1beta1.RuleActionAllow
	return antreav1beta1.NetworkPolicySpec{
		Tier: "application", Priority: priority,
		AppliedTo: []antreav1beta1.AppliedTo{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		Ingress:   []antreav1beta1.Rule{{Action: &allow, From: []antreav1beta1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}}},
	}
}

// realized is the status Antrea writes once nodes of desired enforce generation observed.
func realized(observed int64, nodes int32) antreav1beta1.NetworkPolicyStatus {
	return antreav1beta1.NetworkPolicyStatus{Phase: antreav1beta1.NetworkPolicyRealized, ObservedGeneration: observed,
		CurrentNodesRealized: nodes, DesiredNodesRealized: nodes,
		Conditions: []antreav1beta1.NetworkPolicyCondition{{Type: antreav1beta1.NetworkPolicyConditionRealizable, Status: metav1.ConditionTrue,
			LastTransitionTime: metav1.Now(), Reason: "Realizable", Message: "every Node enforces it"}}}
}

// row is the line of a table that has every field, in order.
func row(table string, fields ...string) (string, bool) {
	for _, l := range strings.Split(table, "\n") {
		if strings.Join(strings.Fields(l), " ") == strings.Join(fields, " ") {
			return l, true
		}
	}
	return "", false
}
