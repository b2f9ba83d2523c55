package exportstatus

import (
	"context"
	"fmt"
	"maps"
	"time"

	"antreaplus.io/antreaplus/internal/statuswrite"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/entityexport"
)

// The member controller's rights for EntityExport status (chart: files/rbac/member-controller.yaml).
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=entityexports,verbs=get;list;watch
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=entityexports/status,verbs=update
// +kubebuilder:rbac:groups=crd.antrea.io,resources=externalentities,verbs=get;list;watch

// Reconciler writes the status of EntityExports.
type Reconciler struct {
	client.Client
}

// SetupWithManager watches EntityExports and the ExternalEntities they may select.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(controllerName).
		For(&federationv1alpha1.EntityExport{}).
		Watches(&antreav1alpha2.ExternalEntity{}, handler.EnqueueRequestsFromMapFunc(r.exportsOfNamespace),
			builder.WithPredicates(selectionChanged())).
		Complete(r)
}

// exportsOfNamespace maps an ExternalEntity to the exports of its Namespace.
func (r *Reconciler) exportsOfNamespace(ctx context.Context, o client.Object) []reconcile.Request {
	list := &federationv1alpha1.EntityExportList{}
	if err := r.List(ctx, list, client.InNamespace(o.GetNamespace())); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out
}

// selectionChanged passes entity events that may change what an export
// selects: an entity added or removed, its labels changed, its deletion begun.
func selectionChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) ||
			e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
	}}
}

// Reconcile writes the status of one export.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start := time.Now()
	exp := &federationv1alpha1.EntityExport{}
	if err := r.Get(ctx, req.NamespacedName, exp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	entities := &antreav1alpha2.ExternalEntityList{}
	if err := r.List(ctx, entities, client.InNamespace(exp.Namespace)); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the ExternalEntities of %s: %w", exp.Namespace, err)
	}
	v := entityexport.Validate(exp)
	selected := len(entityexport.Selected(exp, entities.Items))
	status := *exp.Status.DeepCopy()
	status.ObservedGeneration, status.ExportedEntities = exp.Generation, int32(selected)
	meta.SetStatusCondition(&status.Conditions, entityexport.ValidCondition(exp, v, selected))
	if equality.Semantic.DeepEqual(exp.Status, status) {
		return statuswrite.New(controllerName, r.Client).Unchanged()
	}
	exp.Status = status
	res, err := statuswrite.New(controllerName, r.Client).Write(ctx, exp, "EntityExport", start)
	if err == nil && res.IsZero() {
		log.FromContext(ctx).V(1).Info("Export status written", "valid", v.Reason, "exportedEntities", selected)
	}
	return res, err
}

// controllerName names the controller in the manager and in its metrics.
const controllerName = "entityexport-status"
