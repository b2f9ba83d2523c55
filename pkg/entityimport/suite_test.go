package entityimport

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
)

// The controller runs here against two real clusters, leading member-2 and
// reading member-1, with a federation view, a registry and an election the
// tests control (package leadertest).

var clusters *framework.Clusters

var bg = context.Background()

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.MainWith(m, 2, &clusters, framework.Options{Light: true}) // light members: the federation needs only their API servers
}

// sharedNamespace creates a namespace of one name, prefix and a random
// suffix, in each cluster given, deleted when the test ends.
func sharedNamespace(t *testing.T, prefix string, in ...string) string {
	t.Helper()
	name := prefix + "-" + rand.String(5)
	for _, cluster := range in {
		createNamespace(t, cluster, name)
	}
	return name
}

func createNamespace(t *testing.T, cluster, name string) {
	t.Helper()
	c := clusters.Client(t, cluster)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(bg, ns); err != nil {
		t.Fatalf("creating namespace %s in %s: %v", name, cluster, err)
	}
	t.Cleanup(func() { _ = c.Delete(bg, ns) })
}

// createEntity creates an ExternalEntity with one endpoint per IP.
func createEntity(t *testing.T, c client.Client, ns, name string, labels map[string]string, ips ...string) *antreav1alpha2.ExternalEntity {
	t.Helper()
	e := &antreav1alpha2.ExternalEntity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	for _, ip := range ips {
		e.Spec.Endpoints = append(e.Spec.Endpoints, antreav1alpha2.Endpoint{IP: ip, Name: name})
	}
	e.Spec.Ports = []antreav1alpha2.NamedPort{{Protocol: corev1.ProtocolTCP, Port: 443, Name: "https"}}
	if err := c.Create(bg, e); err != nil {
		t.Fatal(err)
	}
	return e
}

// createExport exports the entities of ns that match matchLabels.
func createExport(t *testing.T, c client.Client, ns, name string, matchLabels map[string]string) *federationv1alpha1.EntityExport {
	t.Helper()
	e := &federationv1alpha1.EntityExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: federationv1alpha1.EntityExportSpec{ExternalEntitySelector: metav1.LabelSelector{MatchLabels: matchLabels}}}
	if err := c.Create(bg, e); err != nil {
		t.Fatal(err)
	}
	return e
}

// remote describes the RemoteEntities of ns in c: "name=ip,ip ..." sorted by name.
func remote(t *testing.T, c client.Client, ns string) string {
	t.Helper()
	list := &federationv1alpha1.RemoteEntityList{}
	if err := c.List(bg, list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range list.Items {
		var ips []string
		for _, e := range r.Spec.Endpoints {
			ips = append(ips, e.IP)
		}
		out = append(out, r.Name+"="+strings.Join(ips, ","))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func waitRemote(t *testing.T, c client.Client, ns, want string) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, func() error {
		if got := remote(t, c, ns); got != want {
			return fmt.Errorf("RemoteEntities of %s: %q, want %q", ns, got, want)
		}
		return nil
	})
}

// stays checks that the RemoteEntities of ns do not change for d.
func stays(t *testing.T, c client.Client, ns, want string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if got := remote(t, c, ns); got != want {
			t.Fatalf("RemoteEntities of %s: %q, want them kept as %q", ns, got, want)
		}
	}
}
