package serviceimport

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/exportscope"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// applyImport writes the derived Service, the ServiceImport and the
// imported slices of a merged name, each only when it differs.
func (r *run) applyImport(ctx context.Context, k types.NamespacedName, result serviceexport.Result, imported map[string][]discoveryv1.EndpointSlice) error {
	var cs serviceexport.ClusterSetIP
	derived := types.NamespacedName{Namespace: k.Namespace, Name: serviceexport.DerivedServiceName(k.Name)}
	if result.Type == mcsv1beta1.ClusterSetIP {
		var err error
		if cs, err = r.applyDerivedService(ctx, k, result); err != nil {
			return err
		}
	} else if err := r.deleteIfOurs(ctx, derived, &corev1.Service{}); err != nil {
		return err
	}
	imp, writeStatus, err := r.applyServiceImport(ctx, k, result, cs)
	if err != nil || imp == nil {
		return err
	}
	importer, err := r.importer(ctx, result)
	if err != nil {
		return err
	}
	// The import's status and its slices are independent writes: made together.
	var wg sync.WaitGroup
	var statusErr error
	wg.Go(func() { statusErr = writeStatus() })
	slicesErr := r.applySlices(ctx, result, imp, imported, importer)
	wg.Wait()
	return errors.Join(statusErr, slicesErr)
}

// applyServiceImport writes the ServiceImport's metadata and spec, and
// returns the write of its status, to be made next.
func (r *run) applyServiceImport(ctx context.Context, k types.NamespacedName, result serviceexport.Result, cs serviceexport.ClusterSetIP) (*mcsv1beta1.ServiceImport, func() error, error) {
	want := serviceexport.DesiredImport(k.Namespace, k.Name, result, cs)
	have := &mcsv1beta1.ServiceImport{}
	err := r.m.OwnCache().Get(ctx, k, have)
	switch {
	case apierrors.IsNotFound(err):
		have = want.DeepCopy()
		have.Status = mcsv1beta1.ServiceImportStatus{}
		if err := r.write("ServiceImport", "create", have, func() error { return r.writer.Create(ctx, have) }); err != nil {
			return nil, nil, err
		}
	case err != nil:
		return nil, nil, fmt.Errorf("reading the ServiceImport %s: %w", k, err)
	case !ours(have):
		r.log.Info("A ServiceImport the federation does not manage has the exported name: left alone", "import", k)
		return nil, nil, nil
	case !serviceexport.ImportSpecMatches(have, want):
		upd := have.DeepCopy()
		upd.Labels, upd.Annotations, upd.Spec = want.Labels, serviceexport.UpdatedAnnotations(have.Annotations, want.Annotations), want.Spec
		if err := r.write("ServiceImport", "update", upd, func() error { return r.writer.Update(ctx, upd) }); err != nil {
			return nil, nil, err
		}
		have = upd
	}
	for i := range want.Status.Conditions {
		want.Status.Conditions[i].ObservedGeneration = have.Generation
	}
	if serviceexport.ImportStatusMatches(have, want) {
		return have, func() error { return nil }, nil
	}
	upd := have.DeepCopy()
	upd.Status.Clusters, upd.Status.EndpointSliceObjects = want.Status.Clusters, want.Status.EndpointSliceObjects
	serviceexport.SetConditions(&upd.Status.Conditions, want.Status.Conditions...)
	return have, func() error {
		return r.write("ServiceImport", "status", nil, func() error { return r.writer.Status().Update(ctx, upd) })
	}, nil
}

// applySlices writes the desired slices and deletes the imported slices of
// the name that are no longer desired (a source gone, a family gone).
func (r *run) applySlices(ctx context.Context, result serviceexport.Result, imp *mcsv1beta1.ServiceImport, imported map[string][]discoveryv1.EndpointSlice,
	importer serviceexport.Importer) error {
	have := map[string]discoveryv1.EndpointSlice{}
	for _, slices := range imported {
		for _, s := range slices {
			have[s.Name] = s
		}
	}
	for _, want := range serviceexport.DesiredSlices(imp.Namespace, imp.Name, result, serviceexport.ImportOwner(imp), importer) {
		h, ok := have[want.Name]
		delete(have, want.Name)
		switch {
		case !ok:
			if err := r.write("EndpointSlice", "create", want, func() error { return r.writer.Create(ctx, want) }); err != nil {
				return err
			}
		case !serviceexport.SliceMatches(&h, want):
			upd := h.DeepCopy()
			upd.Labels, upd.Annotations, upd.OwnerReferences = want.Labels, serviceexport.UpdatedAnnotations(h.Annotations, want.Annotations), want.OwnerReferences
			upd.Ports, upd.Endpoints = want.Ports, want.Endpoints
			if err := r.write("EndpointSlice", "update", upd, func() error { return r.writer.Update(ctx, upd) }); err != nil {
				return err
			}
		}
	}
	for _, name := range sortedKeys(have) {
		s := have[name]
		if err := r.delete(ctx, &s); err != nil {
			return err
		}
	}
	return nil
}

// withdraw deletes everything written for a name no export backs any more.
func (r *run) withdraw(ctx context.Context, k types.NamespacedName, imported map[string][]discoveryv1.EndpointSlice) error {
	var slices []discoveryv1.EndpointSlice
	for _, ss := range imported {
		slices = append(slices, ss...)
	}
	sort.Slice(slices, func(i, j int) bool { return slices[i].Name < slices[j].Name })
	for i := range slices {
		if err := r.delete(ctx, &slices[i]); err != nil {
			return err
		}
	}
	if err := r.deleteIfOurs(ctx, k, &mcsv1beta1.ServiceImport{}); err != nil {
		return err
	}
	return r.deleteIfOurs(ctx, types.NamespacedName{Namespace: k.Namespace, Name: serviceexport.DerivedServiceName(k.Name)}, &corev1.Service{})
}

// applyOwnStatus sets the conditions the leader writes on one of the led
// member's own exports, as name k decides them: Conflict (the merge's
// verdict) and Exported (where its scope takes it, package exportscope,
// and which federated Service it joins).
func (r *run) applyOwnStatus(ctx context.Context, k types.NamespacedName, own *ownExport, result serviceexport.Result, merged bool) error {
	gen := own.export.Generation
	conflict := serviceexport.NoConflictCondition(gen)
	if _, in := result.Export(r.m.ClusterID); merged && in && own.joinErr == nil && !own.notAccepted {
		conflict = result.Conflict
		conflict.ObservedGeneration = gen
	}
	upd := own.export.DeepCopy()
	if !serviceexport.SetConditions(&upd.Status.Conditions, conflict, r.exportedCondition(k, own)) {
		return nil
	}
	// The update carries the resourceVersion read: it fails, and is retried,
	// if the member controller wrote its conditions meanwhile.
	return r.write("ServiceExport", "status", nil, func() error {
		if err := r.writer.Status().Update(ctx, upd); !apierrors.IsNotFound(err) {
			return err
		}
		return nil // unexported meanwhile
	})
}

// exportedCondition is the Exported condition of one of the led member's
// exports, decided at name k.
func (r *run) exportedCondition(k types.NamespacedName, own *ownExport) metav1.Condition {
	gen := own.export.Generation
	if own.joinErr != nil {
		return metav1.Condition{Type: federationv1alpha1.ConditionExported, Status: metav1.ConditionFalse, ObservedGeneration: gen,
			Reason: federationv1alpha1.ReasonJoinRefused, Message: own.joinErr.Error() + "; exported nowhere until it is fixed"}
	}
	members := r.sources.ScopeMembers(r.m.Federation.Members())
	exporter := r.sources.ScopeMember(r.m.ClusterID, own.labels)
	c := exportscope.Condition(own.scope, own.scopeErr, exportscope.ReachOf(own.scope, exporter, members),
		exportscope.Unknown(own.scope, members), gen)
	if own.joins == (types.NamespacedName{}) || own.scopeErr != nil {
		return c
	}
	from := own.export.Namespace
	c.Message += fmt.Sprintf("; joins %s: imported where Namespace %s accepts Namespace %s (label %s=true)",
		own.joins, own.joins.Namespace, from, exportscope.AcceptLabel(from))
	if own.notAccepted {
		c.Message += fmt.Sprintf("; not accepted in %s", r.m.ClusterID)
	}
	if c.Status == metav1.ConditionTrue {
		c.Reason = federationv1alpha1.ReasonJoined
	}
	return c
}

func (r *run) deleteIfOurs(ctx context.Context, k types.NamespacedName, obj client.Object) error {
	// Derived Services and ServiceImports are in the own cache (a Service
	// of that name not the federation's is not).
	if err := r.m.OwnCache().Get(ctx, k, obj); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return fmt.Errorf("reading %s: %w", k, err)
	}
	if !ours(obj) {
		return nil
	}
	return r.delete(ctx, obj)
}

// delete deletes an object, only the very one read (UID precondition).
func (r *run) delete(ctx context.Context, obj client.Object) error {
	uid := obj.GetUID()
	return r.write(reflect.TypeOf(obj).Elem().Name(), "delete", nil, func() error {
		err := r.writer.Delete(ctx, obj, client.Preconditions{UID: &uid})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}

// write makes one write if the election still allows it, stamping the
// leader's term on the object (when given) and counting it.
func (r *run) write(kind, verb string, stamp client.Object, do func() error) error {
	return metrics.CountedWrite(r.m, kind, verb, stamp, do)
}
