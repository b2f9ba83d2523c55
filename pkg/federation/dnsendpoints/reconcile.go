package dnsendpoints

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	externaldnsv1alpha1 "antreaplus.io/antreaplus/api/externaldns/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/externaldns/records"
	"antreaplus.io/antreaplus/pkg/federation/manager"
	"antreaplus.io/antreaplus/pkg/federation/sources"
)

// errAPIMissing is a led member asking for external DNS without serving
// the DNSEndpoint API.
var errAPIMissing = errors.New("the member serves no DNSEndpoint API (externaldns.k8s.io/v1alpha1): install ExternalDNS's CRD dnsendpoints.externaldns.k8s.io, which comes with ExternalDNS, or remove spec.externalDNS from its ClusterMembership")

// reconcile makes the DNSEndpoint of Service k hold what records.Desired
// decides from its exporters, writing only when that differs from what is
// stored.
func (r *run) reconcile(ctx context.Context, k key) error {
	fed, ext, err := r.config(ctx)
	if err != nil {
		return err
	}
	if err := r.ensureListed(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	missing, told := r.crdMissing, r.toldMissing
	r.toldMissing = missing != nil && ext != nil
	r.mu.Unlock()
	if missing != nil {
		if ext == nil {
			apiMissing.WithLabelValues(r.m.ClusterID).Set(0)
			return nil
		}
		// Not an error of this Service: said once, looked at again soon
		// (the API is listed again every apiRecheck meanwhile).
		apiMissing.WithLabelValues(r.m.ClusterID).Set(1)
		if !told {
			r.log.Error(errAPIMissing, "Cannot publish the federated Services", "member", r.m.ClusterID)
		}
		r.queue.AddAfter(k, apiRecheck)
		return nil
	}
	apiMissing.WithLabelValues(r.m.ClusterID).Set(0)
	stored, known := r.storedOf(k)
	if !known {
		if stored, err = r.read(ctx, k); err != nil {
			return err
		}
	}
	var want *externaldnsv1alpha1.DNSEndpoint
	if ext != nil {
		exporters, err := r.exporters(ctx, k, stored)
		if err != nil {
			return err
		}
		result := records.Desired(records.Input{Domain: ext.Domain, TTL: ext.RecordTTL, FederationID: fed,
			Namespace: k.Namespace, Service: k.Name, Exporters: exporters})
		want = Desired(k, result, exporters)
	}
	return r.apply(ctx, k, stored, want)
}

// config is what the led member's ClusterMembership asks for: its
// federation and, when set, its externalDNS.
func (r *run) config(ctx context.Context) (string, *federationv1alpha1.ExternalDNSSpec, error) {
	cm := &federationv1alpha1.ClusterMembership{}
	if err := r.m.Cluster.GetCache().Get(ctx, client.ObjectKey{Name: federationv1alpha1.MembershipName}, cm); err != nil {
		return "", nil, fmt.Errorf("reading the ClusterMembership of %s: %w", r.m.ClusterID, err)
	}
	return cm.Spec.FederationID, cm.Spec.ExternalDNS, nil
}

// apiRecheck is how often a member without the DNSEndpoint API is asked
// again (its CRD may be installed at any time).
const apiRecheck = 5 * time.Second

// ensureListed lists the DNSEndpoints once before the first write, and
// again every apiRecheck while the member has no DNSEndpoint API.
func (r *run) ensureListed(ctx context.Context) error {
	r.mu.Lock()
	fresh := r.listed && (r.crdMissing == nil || time.Since(r.listedAt) < apiRecheck)
	r.mu.Unlock()
	if fresh {
		return nil
	}
	return r.list(ctx)
}

// list reads every DNSEndpoint of ours in the led member's federationv1alpha1.SystemNamespace
// (one LIST of the API server) and makes them what is stored; stored keys
// of ours that are gone are stored as none. A member without the
// DNSEndpoint API is noted, not an error.
func (r *run) list(ctx context.Context) error {
	list := &externaldnsv1alpha1.DNSEndpointList{}
	err := r.m.Reader().List(ctx, list, client.InNamespace(federationv1alpha1.SystemNamespace), client.MatchingLabels{federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listedAt = time.Now()
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		r.crdMissing, r.listed = err, true
		return nil
	}
	if err != nil {
		return fmt.Errorf("listing the DNSEndpoints of %s: %w", r.m.ClusterID, err)
	}
	r.crdMissing, r.listed = nil, true
	seen := map[key]bool{}
	for i := range list.Items {
		if k, ok := KeyOf(&list.Items[i]); ok {
			r.stored[k], seen[k] = &list.Items[i], true
		}
	}
	for k, ep := range r.stored {
		if !seen[k] && Ours(ep) {
			r.stored[k] = nil
		}
	}
	r.countLocked()
	return nil
}

// read gets the DNSEndpoint of k from the API server (nil when none) and
// stores it.
func (r *run) read(ctx context.Context, k key) (*externaldnsv1alpha1.DNSEndpoint, error) {
	ep := &externaldnsv1alpha1.DNSEndpoint{}
	err := r.m.Reader().Get(ctx, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: Name(k)}, ep)
	switch {
	case apierrors.IsNotFound(err):
		ep = nil
	case err != nil:
		return nil, fmt.Errorf("reading the DNSEndpoint of %s in %s: %w", k, r.m.ClusterID, err)
	}
	r.setStored(k, ep)
	return ep, nil
}

// exporters are the exports of Service k the records count: read from
// every readable member; kept as stored for a member that cannot be read
// (its cache not synced, or missing from the manager's view while still
// registered); none of a member the federation withdrew.
func (r *run) exporters(ctx context.Context, k key, stored *externaldnsv1alpha1.DNSEndpoint) ([]records.Exporter, error) {
	kept := keptExporters(stored)
	var out []records.Exporter
	inView := map[string]bool{}
	// Only exports that reach the led member are published for it (package
	// exportscope); what was published for a member that cannot be read
	// stays, unless the led member now refuses it.
	members := r.m.Federation.Members()
	importer := r.sources.Importer(members)
	for _, mi := range members {
		inView[mi.ClusterID] = true
		switch r.sources.State(mi) {
		case sources.Withdrawn:
			continue
		case sources.Kept:
			if e, ok := kept[mi.ClusterID]; ok && r.sources.Reaches(exportscope.Scope{}, mi.ClusterID, mi.Labels, importer) {
				out = append(out, e)
			}
			continue
		}
		src, ok, err := r.exportAt(ctx, mi, k, importer)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, ExporterOf(src))
		}
	}
	for id, e := range kept {
		if !inView[id] && r.sources.StillRegistered(ctx, id) && r.sources.Reaches(exportscope.Scope{}, id, nil, importer) {
			out = append(out, e)
		}
	}
	return out, nil
}

// exportAt is the export member mi gives federated Service k, when it
// reaches the led member (importer): its own export of k, unless that one
// joins another name (or its joins annotation is wrong: it is published
// nowhere); otherwise its first export that joins k (the joins annotation)
// where the led member's Namespace accepts the export's Namespace. A
// member gives a federated Service one export, as package serviceimport
// decides. A scope that cannot be read reaches its own member alone.
func (r *run) exportAt(ctx context.Context, mi manager.MemberInfo, k key, importer exportscope.Member) (Source, bool, error) {
	reaches := func(src Source) bool {
		scope, _ := exportscope.FromAnnotations(src.Export.Annotations)
		return r.sources.Reaches(scope, mi.ClusterID, mi.Labels, importer)
	}
	src, ok, err := readSource(ctx, mi, k)
	if err != nil {
		return Source{}, false, err
	}
	if ok {
		if target, joinOK, _ := exportscope.JoinTarget(k, src.Export.Annotations); joinOK && target == k {
			return src, reaches(src), nil
		}
	}
	joining := r.joins.Joining(mi.ClusterID, k)
	if len(joining) == 0 {
		return Source{}, false, nil
	}
	nsLabels, err := r.namespaceLabels(ctx, k.Namespace)
	if err != nil {
		return Source{}, false, err
	}
	for _, jk := range joining {
		if !exportscope.Accepts(k.Namespace, nsLabels, jk.Namespace) {
			continue
		}
		js, ok, err := readSource(ctx, mi, jk)
		if err != nil {
			return Source{}, false, err
		}
		if !ok {
			continue // unexported meanwhile
		}
		if target, joinOK, _ := exportscope.JoinTarget(jk, js.Export.Annotations); !joinOK || target != k {
			continue // joins elsewhere now
		}
		if reaches(js) {
			return js, true, nil
		}
	}
	return Source{}, false, nil
}

// namespaceLabels are the labels of the led member's Namespace ns (nil
// when it does not exist): which Namespaces' exports may join its Services.
func (r *run) namespaceLabels(ctx context.Context, ns string) (map[string]string, error) {
	n := &corev1.Namespace{}
	if err := r.m.Cluster.GetCache().Get(ctx, client.ObjectKey{Name: ns}, n); apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("reading namespace %s of %s: %w", ns, r.m.ClusterID, err)
	}
	return n.Labels, nil
}

// keptExporters are the exporters a stored DNSEndpoint of ours was decided from, by member.
func keptExporters(stored *externaldnsv1alpha1.DNSEndpoint) map[string]records.Exporter {
	out := map[string]records.Exporter{}
	if !Ours(stored) {
		return out
	}
	var list []records.Exporter
	if err := json.Unmarshal([]byte(stored.Annotations[federationv1alpha1.AnnotationExporters]), &list); err != nil {
		return out
	}
	for _, e := range list {
		out[e.ClusterID] = e
	}
	return out
}

// readSource reads what member mi holds of Service k from its cache; false
// when it does not export it.
func readSource(ctx context.Context, mi manager.MemberInfo, k key) (Source, bool, error) {
	c := mi.Cluster.GetCache()
	src := Source{ClusterID: mi.ClusterID, Export: &mcsv1beta1.ServiceExport{}}
	if err := c.Get(ctx, k, src.Export); apierrors.IsNotFound(err) {
		return src, false, nil
	} else if err != nil {
		return src, false, fmt.Errorf("reading the export %s of %s: %w", k, mi.ClusterID, err)
	}
	svc := &corev1.Service{}
	switch err := c.Get(ctx, k, svc); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return src, false, fmt.Errorf("reading the Service %s of %s: %w", k, mi.ClusterID, err)
	default:
		src.Service = svc
	}
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		return src, false, fmt.Errorf("listing the nodes of %s: %w", mi.ClusterID, err)
	}
	src.Nodes = nodes.Items
	if src.Service != nil && src.Service.Spec.Type == corev1.ServiceTypeNodePort &&
		src.Service.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		slices := &discoveryv1.EndpointSliceList{}
		if err := c.List(ctx, slices, client.InNamespace(k.Namespace), client.MatchingLabels{discoveryv1.LabelServiceName: k.Name},
			client.UnsafeDisableDeepCopy); err != nil {
			return src, false, fmt.Errorf("listing the EndpointSlices of %s in %s: %w", k, mi.ClusterID, err)
		}
		src.Slices = slices.Items
	}
	return src, true, nil
}
