package services

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport"
	"antreaplus.io/antreaplus/test/framework"
)

var clients sync.Map

// cl is an admin client of a cluster, made once.
func cl(t testing.TB, cluster string) client.Client {
	t.Helper()
	if c, ok := clients.Load(cluster); ok {
		return c.(client.Client)
	}
	c := clusters.Client(t, cluster)
	clients.Store(cluster, c)
	return c
}

var bg = context.Background()

// sharedNamespace creates one namespace name in the given clusters (all
// when none given) and deletes it everywhere when the test ends.
func sharedNamespace(t testing.TB, in ...string) string {
	t.Helper()
	if len(in) == 0 {
		in = clusters.Names
	}
	name := fmt.Sprintf("svc-%06d", rand.IntN(1000000))
	for _, c := range in {
		createNamespace(t, c, name)
	}
	t.Cleanup(func() {
		for _, c := range clusters.Names {
			_ = cl(t, c).Delete(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	})
	return name
}

func createNamespace(t testing.TB, cluster, name string) {
	t.Helper()
	if err := cl(t, cluster).Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatalf("creating namespace %s in %s: %v", name, cluster, err)
	}
}

type svcMod func(*corev1.Service)

func nodePort() svcMod { return func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort } }

// withoutSelector leaves the Service's endpoints to its owner: the
// controller manager then writes no Endpoints or EndpointSlice for it (a
// NodePort export's endpoints are the member's nodes either way).
func withoutSelector() svcMod { return func(s *corev1.Service) { s.Spec.Selector = nil } }

func loadBalancer() svcMod {
	return func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeLoadBalancer }
}

func externalName() svcMod {
	return func(s *corev1.Service) {
		s.Spec.Type, s.Spec.ExternalName, s.Spec.Ports = corev1.ServiceTypeExternalName, "example.com", nil
	}
}

func servicePort(name string, port int32) svcMod {
	return func(s *corev1.Service) {
		s.Spec.Ports = []corev1.ServicePort{{Name: name, Port: port, Protocol: corev1.ProtocolTCP}}
	}
}

// newService is a Service selecting app=<name>, port http 80 unless modified.
func newService(ns, name string, mods ...svcMod) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": name},
		Ports:    []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
	}}
	for _, m := range mods {
		m(s)
	}
	return s
}

// createService creates newService(ns, name, mods...) in a cluster.
func createService(t testing.TB, cluster, ns, name string, mods ...svcMod) *corev1.Service {
	t.Helper()
	s := newService(ns, name, mods...)
	if err := cl(t, cluster).Create(bg, s); err != nil {
		t.Fatalf("creating Service %s/%s in %s: %v", ns, name, cluster, err)
	}
	return s
}

// setIngress plays the cloud: it gives a LoadBalancer Service its ingress IP.
func setIngress(t testing.TB, cluster string, s *corev1.Service, ip string) {
	t.Helper()
	s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	if err := cl(t, cluster).Status().Update(bg, s); err != nil {
		t.Fatalf("setting the ingress IP of %s in %s: %v", s.Name, cluster, err)
	}
}

// createPod runs a Pod of app=<app> on a kwok node, which gives it an IP.
func createPod(t testing.TB, cluster, ns, app string) {
	t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: app + "-", Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app", Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}},
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}}
	if err := cl(t, cluster).Create(bg, p); err != nil {
		t.Fatalf("creating a Pod in %s: %v", cluster, err)
	}
}

func exportService(t testing.TB, cluster, ns, name string, flat bool) {
	t.Helper()
	e := &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if flat {
		e.Annotations = map[string]string{federationv1alpha1.AnnotationFlatNetwork: "true"}
	}
	if err := cl(t, cluster).Create(bg, e); err != nil {
		t.Fatalf("exporting %s/%s from %s: %v", ns, name, cluster, err)
	}
}

func deleteObject(t testing.TB, cluster string, o client.Object) {
	t.Helper()
	if err := cl(t, cluster).Delete(bg, o); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("deleting %T %s in %s: %v", o, o.GetName(), cluster, err)
	}
}

func unexport(t testing.TB, cluster, ns, name string) {
	t.Helper()
	deleteObject(t, cluster, &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
}

// condition is an export's condition as "Status/Reason", "" when absent.
func condition(t testing.TB, cluster, ns, name string, typ mcsv1beta1.ServiceExportConditionType) (string, string) {
	t.Helper()
	e := &mcsv1beta1.ServiceExport{}
	if err := cl(t, cluster).Get(bg, client.ObjectKey{Namespace: ns, Name: name}, e); err != nil {
		return "", err.Error()
	}
	c := meta.FindStatusCondition(e.Status.Conditions, string(typ))
	if c == nil {
		return "", ""
	}
	return string(c.Status) + "/" + c.Reason, c.Message
}

// waitCondition waits until an export's condition is want ("True/Valid").
func waitCondition(t testing.TB, cluster, ns, name string, typ mcsv1beta1.ServiceExportConditionType, want string) string {
	t.Helper()
	var msg string
	framework.Eventually(t, 30*time.Second, func() error {
		var got string
		got, msg = condition(t, cluster, ns, name, typ)
		if got != want {
			return fmt.Errorf("%s: %s/%s condition %s is %q (%s), want %q", cluster, ns, name, typ, got, msg, want)
		}
		return nil
	})
	return msg
}

// imported is what one member imported of a name.
type imported struct {
	imp     *mcsv1beta1.ServiceImport
	derived *corev1.Service
	// slices by source cluster
	slices map[string][]discoveryv1.EndpointSlice
}

// readImport reads a member's import of a name; imp is nil when absent.
func readImport(t testing.TB, cluster, ns, name string) imported {
	t.Helper()
	c := cl(t, cluster)
	out := imported{slices: map[string][]discoveryv1.EndpointSlice{}}
	imp := &mcsv1beta1.ServiceImport{}
	if err := c.Get(bg, client.ObjectKey{Namespace: ns, Name: name}, imp); err == nil {
		out.imp = imp
	}
	svc := &corev1.Service{}
	if err := c.Get(bg, client.ObjectKey{Namespace: ns, Name: serviceexport.DerivedServiceName(name)}, svc); err == nil {
		out.derived = svc
	}
	list := &discoveryv1.EndpointSliceList{}
	if err := c.List(bg, list, client.InNamespace(ns), client.MatchingLabels{mcsv1beta1.LabelServiceName: name}); err != nil {
		t.Fatalf("listing slices in %s: %v", cluster, err)
	}
	for _, s := range list.Items {
		out.slices[s.Labels[mcsv1beta1.LabelSourceCluster]] = append(out.slices[s.Labels[mcsv1beta1.LabelSourceCluster]], s)
	}
	return out
}

// endpoints lists "address:port" of a source's imported slices (first port), sorted.
func (i imported) endpoints(source string) []string {
	var out []string
	for _, s := range i.slices[source] {
		port := int32(0)
		if len(s.Ports) > 0 && s.Ports[0].Port != nil {
			port = *s.Ports[0].Port
		}
		for _, e := range s.Endpoints {
			out = append(out, fmt.Sprintf("%s:%d", e.Addresses[0], port))
		}
	}
	sort.Strings(out)
	return out
}

func (i imported) sources() []string {
	var out []string
	for s := range i.slices {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// waitImported waits until check passes on the import of a name in every given cluster.
func waitImported(t testing.TB, timeout time.Duration, ns, name string, in []string, check func(cluster string, i imported) error) {
	t.Helper()
	framework.Eventually(t, timeout, func() error {
		for _, c := range in {
			if err := check(c, readImport(t, c, ns, name)); err != nil {
				return fmt.Errorf("%s: %w", c, err)
			}
		}
		return nil
	})
}

// gone checks that nothing of a name is imported.
func gone(_ string, i imported) error {
	if i.imp != nil || i.derived != nil || len(i.slices) > 0 {
		return fmt.Errorf("still imported: import %v, derived Service %v, slices from %v", i.imp != nil, i.derived != nil, i.sources())
	}
	return nil
}

// nodeEndpoints are the addresses a NodePort export of cluster offers on port.
func nodeEndpoints(t testing.TB, cluster string, port int32) []string {
	t.Helper()
	nodes := &corev1.NodeList{}
	if err := cl(t, cluster).List(bg, nodes); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range nodes.Items {
		addr := ""
		for _, typ := range []corev1.NodeAddressType{corev1.NodeExternalIP, corev1.NodeInternalIP} {
			for _, a := range n.Status.Addresses {
				if a.Type == typ && addr == "" {
					addr = a.Address
				}
			}
		}
		if addr != "" && !seen[addr] {
			seen[addr] = true
			out = append(out, fmt.Sprintf("%s:%d", addr, port))
		}
	}
	sort.Strings(out)
	return out
}

// managedIn counts what leaders wrote in a namespace of a cluster.
func managedIn(t testing.TB, cluster, ns string) (imports, slices, services int) {
	t.Helper()
	c := cl(t, cluster)
	sel := client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation}
	// Metadata only: the burst counts thousands of them.
	count := func(gv schema.GroupVersion, kind string) int {
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(gv.WithKind(kind + "List"))
		if err := c.List(bg, l, client.InNamespace(ns), sel); err != nil {
			t.Fatalf("listing %s in %s: %v", kind, cluster, err)
		}
		return len(l.Items)
	}
	return count(mcsv1beta1.SchemeGroupVersion, "ServiceImport"), count(discoveryv1.SchemeGroupVersion, "EndpointSlice"), count(corev1.SchemeGroupVersion, "Service")
}

// importLists are the kinds a leader writes.
func importLists() []client.ObjectList {
	return []client.ObjectList{&mcsv1beta1.ServiceImportList{}, &discoveryv1.EndpointSliceList{}, &corev1.ServiceList{}}
}

// namesWithoutEndpoints lists the imported names of a namespace whose slices
// from source hold no endpoint.
func namesWithoutEndpoints(t testing.TB, cluster, ns, source string) []string {
	t.Helper()
	list := &discoveryv1.EndpointSliceList{}
	if err := cl(t, cluster).List(bg, list, client.InNamespace(ns), client.MatchingLabels{mcsv1beta1.LabelSourceCluster: source}); err != nil {
		t.Fatal(err)
	}
	imports := &mcsv1beta1.ServiceImportList{}
	if err := cl(t, cluster).List(bg, imports, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	with := map[string]bool{}
	for _, s := range list.Items {
		if len(s.Endpoints) > 0 {
			with[s.Labels[mcsv1beta1.LabelServiceName]] = true
		}
	}
	var out []string
	for _, i := range imports.Items {
		if !with[i.Name] {
			out = append(out, i.Name)
		}
	}
	return out
}
