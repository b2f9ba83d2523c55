package serviceimport

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/federation/sources"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// reconcile makes the led member's import of one name what the exports of
// every member ask for, and sets the Conflict condition of its own export.
func (r *run) reconcile(ctx context.Context, k types.NamespacedName) error {
	if k == withheldKey {
		return r.writeWithheld(ctx)
	}
	imported, err := r.importedSlices(ctx, k)
	if err != nil {
		return err
	}
	active, nsLabels, err := r.namespaceActive(ctx, k.Namespace)
	if err != nil {
		return err
	}
	exports, owns, err := r.collect(ctx, k, imported, nsLabels)
	if err != nil {
		return err
	}
	result, ok := serviceexport.Merge(exports)
	// The import and the own exports' conditions are independent: written together.
	var wg sync.WaitGroup
	statusErrs := make([]error, len(owns))
	for i, own := range owns {
		wg.Go(func() { statusErrs[i] = r.applyOwnStatus(ctx, k, own, result, ok) })
	}
	switch {
	case active && ok:
		err = r.applyImport(ctx, k, result, imported)
	case active:
		err = r.withdraw(ctx, k, imported)
	}
	wg.Wait()
	return errors.Join(append(statusErrs, err)...)
}

// collect gathers the valid exports of a name that reach the led member:
// read from every live member, rebuilt from the imported slices for kept
// members and for clusters missing from this manager's view but still
// registered, nothing from withdrawn members. An export reaches the led
// member when its scope includes it and the led member does not refuse
// its exporter (package exportscope); what was imported from a kept member
// stays unless the led member now refuses it. A member's export of another
// name that joins this one (the joins annotation) is read too, where the
// led member's Namespace accepts its Namespace (nsLabels), and unless the
// member exports this name itself. owns are the led member's exports whose
// conditions this name decides, with their scope.
func (r *run) collect(ctx context.Context, k types.NamespacedName, imported map[string][]discoveryv1.EndpointSlice,
	nsLabels map[string]string) ([]serviceexport.Export, []*ownExport, error) {
	var exports []serviceexport.Export
	var owns []*ownExport
	seen := map[string]bool{}
	members := r.m.Federation.Members()
	importer := r.sources.Importer(members)
	reaches := func(s exportscope.Scope, id string, labels map[string]string) bool {
		return r.sources.Reaches(s, id, labels, importer)
	}
	for _, mi := range members {
		seen[mi.ClusterID] = true
		switch r.sources.State(mi) {
		case sources.Withdrawn:
		case sources.Kept:
			if e, ok := serviceexport.ExportFromSlices(mi.ClusterID, imported[mi.ClusterID]); ok && reaches(exportscope.Scope{}, mi.ClusterID, mi.Labels) {
				exports = append(exports, e)
			}
		case sources.Live:
			led := mi.ClusterID == r.m.ClusterID
			// ownsName: the member exports this name itself. It then gives it
			// that export only, whether or not it reaches the led member: the
			// same decision in every member.
			ownsName, given := false, k
			exp, e, valid, err := readExport(ctx, mi.Cluster, mi.ClusterID, k)
			if err != nil {
				return nil, nil, err
			}
			if exp != nil {
				scope, scopeErr := exportscope.FromAnnotations(exp.Annotations)
				target, joinOK, joinErr := exportscope.JoinTarget(k, exp.Annotations)
				ownsName = joinOK && target == k
				if ownsName && valid && reaches(scope, mi.ClusterID, mi.Labels) {
					exports = append(exports, e)
				}
				// Otherwise it joins another name (decided, and its conditions
				// written, there) or its joins annotation is wrong (nowhere).
				if led && (!joinOK || target == k) {
					owns = append(owns, &ownExport{export: exp, scope: scope, scopeErr: scopeErr, joinErr: joinErr, labels: mi.Labels})
				}
			}
			for _, jk := range r.joins.Joining(mi.ClusterID, k) {
				jexp, je, jvalid, err := readExport(ctx, mi.Cluster, mi.ClusterID, jk)
				if err != nil {
					return nil, nil, err
				}
				if target, ok, _ := exportscope.JoinTarget(jk, annotationsOf(jexp)); jexp == nil || !ok || target != k {
					continue // unexported, or joins elsewhere now
				}
				scope, scopeErr := exportscope.FromAnnotations(jexp.Annotations)
				own := &ownExport{export: jexp, scope: scope, scopeErr: scopeErr, labels: mi.Labels, joins: k}
				switch {
				case ownsName:
					own.joinErr = fmt.Errorf("%s already gives %s its export %s: a member gives a federated Service one export", mi.ClusterID, k, given)
				case !exportscope.Accepts(k.Namespace, nsLabels, jk.Namespace):
					own.notAccepted = true
				case jvalid && reaches(scope, mi.ClusterID, mi.Labels):
					exports, ownsName, given = append(exports, je), true, jk
				}
				if led {
					owns = append(owns, own)
				}
			}
		}
	}
	for _, cluster := range sortedKeys(imported) {
		if seen[cluster] || !r.sources.StillRegistered(ctx, cluster) {
			continue
		}
		if e, ok := serviceexport.ExportFromSlices(cluster, imported[cluster]); ok && reaches(exportscope.Scope{}, cluster, nil) {
			exports = append(exports, e)
		}
	}
	return exports, owns, nil
}

func annotationsOf(exp *mcsv1beta1.ServiceExport) map[string]string {
	if exp == nil {
		return nil
	}
	return exp.Annotations
}

// ownExport is one of the led member's exports whose conditions a name
// decides, and where it may go.
type ownExport struct {
	export   *mcsv1beta1.ServiceExport
	scope    exportscope.Scope
	scopeErr error
	labels   map[string]string
	// joins is the federated Service it joins, when not its own name.
	joins types.NamespacedName
	// joinErr says why it joins nothing (its annotation, or its member
	// exporting that name itself).
	joinErr error
	// notAccepted: the led member's Namespace does not accept it.
	notAccepted bool
}

// readExport reads one member's export of a name from its cache.
func readExport(ctx context.Context, cl cluster.Cluster, id string, k types.NamespacedName) (*mcsv1beta1.ServiceExport, serviceexport.Export, bool, error) {
	c := cl.GetCache()
	exp := &mcsv1beta1.ServiceExport{}
	if err := c.Get(ctx, k, exp); apierrors.IsNotFound(err) {
		return nil, serviceexport.Export{}, false, nil
	} else if err != nil {
		return nil, serviceexport.Export{}, false, fmt.Errorf("reading the export %s of %s: %w", k, id, err)
	}
	var svc *corev1.Service
	s := &corev1.Service{}
	if err := c.Get(ctx, k, s); err == nil {
		svc = s
	} else if !apierrors.IsNotFound(err) {
		return nil, serviceexport.Export{}, false, fmt.Errorf("reading the Service %s of %s: %w", k, id, err)
	}
	slices := &discoveryv1.EndpointSliceList{}
	nodes := &corev1.NodeList{}
	if svc != nil {
		if err := c.List(ctx, slices, client.InNamespace(k.Namespace), client.MatchingLabels{discoveryv1.LabelServiceName: k.Name}); err != nil {
			return nil, serviceexport.Export{}, false, fmt.Errorf("listing the EndpointSlices of %s in %s: %w", k, id, err)
		}
		// The nodes give node port addresses and the cluster's region; they
		// are only read (no copy).
		if err := c.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
			return nil, serviceexport.Export{}, false, fmt.Errorf("listing the nodes of %s: %w", id, err)
		}
	}
	e, v := serviceexport.FromCluster(id, exp, svc, slices.Items, nodes.Items)
	return exp, e, v.Valid, nil
}

// importedSlices are the led member's imported slices of a name, by source cluster.
func (r *run) importedSlices(ctx context.Context, k types.NamespacedName) (map[string][]discoveryv1.EndpointSlice, error) {
	list := &discoveryv1.EndpointSliceList{}
	err := r.m.OwnCache().List(ctx, list, client.InNamespace(k.Namespace), client.MatchingLabels{
		federationv1alpha1.LabelManagedBy: federationv1alpha1.ManagedByFederation, mcsv1beta1.LabelServiceName: k.Name})
	if err != nil {
		return nil, fmt.Errorf("listing the imported slices of %s: %w", k, err)
	}
	out := map[string][]discoveryv1.EndpointSlice{}
	for _, s := range list.Items {
		src := s.Labels[mcsv1beta1.LabelSourceCluster]
		out[src] = append(out[src], s)
	}
	return out, nil
}

// namespaceActive tells whether the namespace exists in the led member and
// is not being deleted (imports are written only there), and gives its labels.
func (r *run) namespaceActive(ctx context.Context, ns string) (bool, map[string]string, error) {
	n := &corev1.Namespace{}
	if err := r.m.Cluster.GetCache().Get(ctx, client.ObjectKey{Name: ns}, n); apierrors.IsNotFound(err) {
		return false, nil, nil
	} else if err != nil {
		return false, nil, fmt.Errorf("reading namespace %s: %w", ns, err)
	}
	return n.DeletionTimestamp.IsZero() && n.Status.Phase != corev1.NamespaceTerminating, n.Labels, nil
}
