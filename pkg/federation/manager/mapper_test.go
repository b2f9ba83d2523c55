package manager

import (
	"net"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
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
	// A cache of Leases in one namespace asks for the scope of the list it
	// is given (controller-runtime's multi-namespace cache).
	if l, err := member.GetRESTMapper().RESTMapping(coordinationv1.SchemeGroupVersion.WithKind("LeaseList").GroupKind(), "v1"); err != nil {
		t.Errorf("the LeaseList mapping asked of a member that does not answer: %v", err)
	} else if l.Scope.Name() != meta.RESTScopeNameNamespace || l.Resource.Resource != "leases" || l.GroupVersionKind.Kind != "LeaseList" {
		t.Errorf("LeaseList mapping %+v, want the list kind of the namespaced resource leases", l)
	}
	if k := knownMappings[0].GroupVersionKind.Kind; k != "Lease" {
		t.Errorf("asking for a list changed the known mapping of Lease: %s", k)
	}
	if _, err := member.GetRESTMapper().RESTMapping(coordinationv1.SchemeGroupVersion.WithKind("Other").GroupKind()); err == nil {
		t.Error("a kind the mapper does not know was mapped without asking the member")
	}
}

// TestKnownMappingsAsServed: every mapping the member mapper answers
// itself is the one a real member's API server serves (with the CRDs the
// federation installs in a member, and ExternalDNS's), by resource and scope.
func TestKnownMappingsAsServed(t *testing.T) {
	cfg := clusters.Config(t, member)
	framework.InstallDNSEndpointCRD(t, cfg)
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

// TestKnownKindNotInstalled: a kind of another project's CRD that a member
// does not serve is answered NotFound through the member mapper (not a
// NoMatch error, and without asking the member's discovery), which is what
// its readers take for "not installed" (package dnsendpoints).
func TestKnownKindNotInstalled(t *testing.T) {
	cfg := clusters.Config(t, supervisor) // no ExternalDNS here
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := memberMapper(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := memberScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{HTTPClient: httpClient, Mapper: mapper, Scheme: sch})
	if err != nil {
		t.Fatal(err)
	}
	err = c.List(t.Context(), &externaldnsv1alpha1.DNSEndpointList{}, client.InNamespace("default"))
	if !apierrors.IsNotFound(err) {
		t.Fatalf("listing DNSEndpoints in a member without their CRD: %v, want NotFound", err)
	}
}
