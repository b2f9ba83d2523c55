package dnsendpoints

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/externaldns/records"
)

func TestDesiredAndSame(t *testing.T) {
	k := types.NamespacedName{Namespace: "shop", Name: "web"}
	exporters := []records.Exporter{
		{ClusterID: "m2", Kind: records.KindLoadBalancer, LoadBalancerIPs: []string{"203.0.113.2"}, Ready: true, Reachable: true},
		{ClusterID: "m1", Kind: records.KindLoadBalancer, LoadBalancerIPs: []string{"203.0.113.1"}, Ready: true, Reachable: true},
	}
	result := records.Desired(records.Input{Domain: "example.com", FederationID: "fed", Namespace: k.Namespace, Service: k.Name, Exporters: exporters})
	want := Desired(k, result, exporters)
	if want.Name != "web.shop" || want.Namespace != federationv1alpha1.SystemNamespace || !Ours(want) {
		t.Fatalf("DNSEndpoint %s/%s labels %v: want antreaplus-system/web.shop, ours", want.Namespace, want.Name, want.Labels)
	}
	if got, ok := KeyOf(want); !ok || got != k {
		t.Errorf("KeyOf = %v %v, want %v", got, ok, k)
	}
	for _, id := range []string{"m1", "m2"} {
		if e, ok := KeptExporter(want, id); !ok || e.ClusterID != id {
			t.Errorf("KeptExporter(%s) = %+v %v", id, e, ok)
		}
	}
	if Desired(k, records.Result{}, exporters) != nil {
		t.Error("a DNSEndpoint without records")
	}

	// What the API server returns: a term annotation and other labels
	// added, nil and empty fields as JSON leaves them.
	stored := want.DeepCopy()
	stored.Annotations[federationv1alpha1.AnnotationLeaderTerm] = "7"
	stored.Labels["team"] = "web"
	stored.ResourceVersion = "5"
	for _, e := range stored.Spec.Endpoints {
		e.Labels = map[string]string{}
	}
	if !Same(stored, want) {
		t.Error("Same: false for what only the server's round trip changed")
	}
	changed := Desired(k, records.Desired(records.Input{Domain: "example.com", FederationID: "fed", Namespace: k.Namespace, Service: k.Name,
		Exporters: exporters[:1]}), exporters[:1])
	if Same(stored, changed) {
		t.Error("Same: true although an exporter left")
	}
	up := Updated(stored, changed)
	if up.ResourceVersion != "5" || up.Labels["team"] != "web" || !Same(up, changed) {
		t.Errorf("Updated lost the stored object's version or labels, or the new records: %+v", up.ObjectMeta)
	}

	theirs := &externaldnsv1alpha1.DNSEndpoint{}
	theirs.Name, theirs.Namespace = "web.shop", federationv1alpha1.SystemNamespace
	if Ours(theirs) {
		t.Error("Ours: true for a DNSEndpoint without our label")
	}
	if _, ok := KeptExporter(theirs, "m1"); ok {
		t.Error("an exporter kept from someone else's DNSEndpoint")
	}
}
