package networkstatus

import (
	"context"
	"fmt"
	"strings"
	"time"

	"antreaplus.io/antreaplus/internal/statuswrite"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/networks"
)

// The member controller's rights for Network status (chart:
// files/rbac/member-controller.yaml).
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=networks,verbs=get;list;watch
// +kubebuilder:rbac:groups=federation.antreaplus.io,resources=networks/status,verbs=update
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=networkinterfaces;cloudnativeservices,verbs=get;list;watch

// Reconciler writes the Valid condition of Networks.
type Reconciler struct {
	client.Client
}

// SetupWithManager watches the Networks (any change of one may change
// another's verdict) and the imported interfaces and services (their VPCs).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(controllerName).
		Watches(&federationv1alpha1.Network{}, handler.EnqueueRequestsFromMapFunc(r.all), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&cloudv1alpha1.NetworkInterface{}, handler.EnqueueRequestsFromMapFunc(r.all), builder.WithPredicates(vpcChanged())).
		Watches(&cloudv1alpha1.CloudNativeService{}, handler.EnqueueRequestsFromMapFunc(r.all), builder.WithPredicates(vpcChanged())).
		Complete(r)
}

// all maps an event to every Network.
func (r *Reconciler) all(ctx context.Context, _ client.Object) []reconcile.Request {
	list := &federationv1alpha1.NetworkList{}
	if err := r.List(ctx, list); err != nil {
		log.FromContext(ctx).Error(err, "Listing Networks")
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out
}

// vpcChanged passes creations, deletions and changes of an imported
// object's VPC.
func vpcChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return vpcOf(e.ObjectOld) != vpcOf(e.ObjectNew)
	}}
}

// vpcOf is the "<provider>/<vpcID>" key of an imported object.
func vpcOf(o client.Object) string {
	switch v := o.(type) {
	case *cloudv1alpha1.NetworkInterface:
		return string(v.Spec.Provider) + "/" + strings.ToLower(v.Spec.VPCID)
	case *cloudv1alpha1.CloudNativeService:
		return string(v.Spec.Provider) + "/" + strings.ToLower(v.Spec.VPCID)
	}
	return ""
}

// Reconcile writes the Valid condition of one Network, judged with the
// others.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start := time.Now()
	n := &federationv1alpha1.Network{}
	if err := r.Get(ctx, req.NamespacedName, n); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	list := &federationv1alpha1.NetworkList{}
	if err := r.List(ctx, list); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing Networks: %w", err)
	}
	imported, err := r.imported(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	verdict := networks.Validate(list.Items, imported)[n.Name]
	status := *n.Status.DeepCopy()
	status.ObservedGeneration = n.Generation
	cond := metav1.Condition{Type: federationv1alpha1.NetworkConditionValid, Status: metav1.ConditionTrue,
		Reason: verdict.Reason, Message: verdict.Message, ObservedGeneration: n.Generation}
	if !verdict.Valid {
		cond.Status = metav1.ConditionFalse
	}
	meta.SetStatusCondition(&status.Conditions, cond)
	if equality.Semantic.DeepEqual(n.Status, status) {
		return statuswrite.New(controllerName, r.Client).Unchanged()
	}
	n.Status = status
	res, err := statuswrite.New(controllerName, r.Client).Write(ctx, n, "Network", start)
	if err == nil && res.IsZero() {
		log.FromContext(ctx).V(1).Info("Network status written", "valid", verdict.Valid, "reason", verdict.Reason)
	}
	return res, err
}

// imported are the VPCs ("<provider>/<vpcID>") of the member's imported
// interfaces and services.
func (r *Reconciler) imported(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	nics := &cloudv1alpha1.NetworkInterfaceList{}
	if err := r.List(ctx, nics); err != nil {
		return nil, fmt.Errorf("listing NetworkInterfaces: %w", err)
	}
	for i := range nics.Items {
		out[vpcOf(&nics.Items[i])] = true
	}
	svcs := &cloudv1alpha1.CloudNativeServiceList{}
	if err := r.List(ctx, svcs); err != nil {
		return nil, fmt.Errorf("listing CloudNativeServices: %w", err)
	}
	for i := range svcs.Items {
		out[vpcOf(&svcs.Items[i])] = true
	}
	return out, nil
}

// controllerName names the controller in the manager and in its metrics.
const controllerName = "network-status"
