package framework

import (
	"context"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// WriteMembership creates a cluster's ClusterMembership (its identity in
// federation "fed", with ext as its spec.externalDNS), deleted when the test
// ends: what leader controllers read of the member they lead, without a
// federation formed.
func WriteMembership(t testing.TB, c client.Client, clusterID string, ext *federationv1alpha1.ExternalDNSSpec) {
	t.Helper()
	m := &federationv1alpha1.ClusterMembership{ObjectMeta: metav1.ObjectMeta{Name: federationv1alpha1.MembershipName},
		Spec: federationv1alpha1.ClusterMembershipSpec{ClusterID: clusterID, FederationID: "fed", ExternalDNS: ext}}
	if err := c.Create(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.WithoutCancel(t.Context()), m) })
}

// EnsureNamespaces creates the namespaces that do not exist yet.
func EnsureNamespaces(t testing.TB, c client.Client, namespaces ...string) {
	t.Helper()
	for _, ns := range namespaces {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// GiveNodesExternalIPs adds an ExternalIP, 198.51.100.<20+i>, to the i-th
// node of the cluster (kwok keeps the addresses it finds: the sandbox's
// nodes have InternalIPs only), unless it has it already, and returns them
// sorted.
func GiveNodesExternalIPs(t testing.TB, c client.Client) []string {
	t.Helper()
	nodes := &corev1.NodeList{}
	if err := c.List(t.Context(), nodes); err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range nodes.Items {
		n := &nodes.Items[i]
		ip := fmt.Sprintf("198.51.100.%d", 20+i)
		addr := corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: ip}
		out = append(out, ip)
		if slices.Contains(n.Status.Addresses, addr) {
			continue // an earlier test of the package gave it
		}
		UpdateStatus(t, c, n, func() { n.Status.Addresses = append(n.Status.Addresses, addr) })
	}
	slices.Sort(out)
	return out
}
