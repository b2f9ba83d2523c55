package manager

import (
	"net"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"
)

// TestMemberBuiltWhileUnreachable builds a member's client and cache with
// nothing answering at its address, as a session does when it connects
// during an outage: it must not ask the member anything yet (it did once:
// the cache's per-kind options asked for the Lease mapping, and a
// reconnect during an outage left the member without a session).
func TestMemberBuiltWhileUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // connections to addr are refused from now on
	s := &session{watchCfg: &rest.Config{Host: "https://" + addr}}
	member, err := s.newMember()
	if err != nil {
		t.Fatalf("building the client of a member that does not answer: %v", err)
	}
	m, err := member.GetRESTMapper().RESTMapping(coordinationv1.SchemeGroupVersion.WithKind("Lease").GroupKind(), "v1")
	if err != nil {
		t.Fatalf("the Lease mapping asked of a member that does not answer: %v", err)
	}
	if m.Scope.Name() != meta.RESTScopeNameNamespace || m.Resource.Resource != "leases" {
		t.Errorf("Lease mapping %+v, want the namespaced resource leases", m)
	}
	n, err := member.GetRESTMapper().RESTMapping(corev1.SchemeGroupVersion.WithKind("Node").GroupKind(), "v1")
	if err != nil {
		t.Fatalf("the Node mapping asked of a member that does not answer: %v", err)
	}
	if n.Scope.Name() != meta.RESTScopeNameRoot || n.Resource.Resource != "nodes" {
		t.Errorf("Node mapping %+v, want the cluster-scoped resource nodes", n)
	}
	for _, gvk := range []schema.GroupVersionKind{corev1.SchemeGroupVersion.WithKind("Service"), discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"),
		mcsv1beta1.SchemeGroupVersion.WithKind("ServiceImport")} {
		if _, err := member.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			t.Errorf("the %s mapping (a kind of the own cache) asked of a member that does not answer: %v", gvk.Kind, err)
		}
	}
	if _, err := member.GetRESTMapper().RESTMapping(coordinationv1.SchemeGroupVersion.WithKind("Other").GroupKind()); err == nil {
		t.Error("a kind the mapper does not know was mapped without asking the member")
	}
}

// TestKnownMappingsAsServed: every mapping the member mapper answers
// itself is the one a real member's API server serves (with the CRDs the
// federation installs in a member), by resource and scope.
func TestKnownMappingsAsServed(t *testing.T) {
	cfg := clusters.Config(t, member)
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	served, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range knownMappings {
		gvk := want.GroupVersionKind
		got, err := served.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Errorf("%s: the member does not serve it: %v", gvk, err)
			continue
		}
		if got.Resource != want.Resource || got.Scope.Name() != want.Scope.Name() {
			t.Errorf("%s: served as %s (%s), known as %s (%s)", gvk, got.Resource, got.Scope.Name(), want.Resource, want.Scope.Name())
		}
	}
}
