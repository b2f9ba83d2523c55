package exportstatus

import (
	"context"
	"fmt"
	"time"

	"antreaplus.io/antreaplus/internal/statuswrite"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// The member controller's rights for export status (chart: files/rbac/member-controller.yaml).
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=serviceexports,verbs=get;list;watch
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=serviceexports/status,verbs=update
// +kubebuilder:rbac:groups="",resources=services;nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch

// Reconciler writes the Valid and Ready conditions of ServiceExports.
type Reconciler struct {
	client.Client
}

// SetupWithManager watches ServiceExports, the Services and EndpointSlices
// of the same name, and nodes (whose addresses NodePort exports offer).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(controllerName).
		For(&mcsv1beta1.ServiceExport{}).
		Watches(&corev1.Service{}, &handler.EnqueueRequestForObject{}).
		Watches(&discoveryv1.EndpointSlice{}, handler.EnqueueRequestsFromMapFunc(sliceToExport)).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.allExports), builder.WithPredicates(nodeAddressesChanged())).
		Complete(r)
}

// sliceToExport maps a Service's EndpointSlice to the export of that Service.
func sliceToExport(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[discoveryv1.LabelServiceName]
	if name == "" || o.GetLabels()[discoveryv1.LabelManagedBy] == federationv1alpha1.EndpointSliceManagedBy {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

func (r *Reconciler) allExports(ctx context.Context, _ client.Object) []reconcile.Request {
	list := &mcsv1beta1.ServiceExportList{}
	if err := r.List(ctx, list); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, e := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&e)})
	}
	return out
}

// nodeAddressesChanged passes node events that change what an export offers:
// a node added or removed, its addresses or its readiness changed.
func nodeAddressesChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		a, okA := e.ObjectOld.(*corev1.Node)
		b, okB := e.ObjectNew.(*corev1.Node)
		return !okA || !okB || !equality.Semantic.DeepEqual(a.Status.Addresses, b.Status.Addresses) ||
			nodeReady(a) != nodeReady(b) || a.Spec.Unschedulable != b.Spec.Unschedulable
	}}
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Reconcile sets the Valid and Ready conditions of one export.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start := time.Now()
	exp := &mcsv1beta1.ServiceExport{}
	if err := r.Get(ctx, req.NamespacedName, exp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	svc := &corev1.Service{}
	if err := r.Get(ctx, req.NamespacedName, svc); apierrors.IsNotFound(err) {
		svc = nil
	} else if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading Service %s: %w", req, err)
	}
	v := serviceexport.ValidateExport(exp, svc)
	var addrs serviceexport.Addresses
	if v.Valid {
		var err error
		if addrs, err = r.addresses(ctx, exp, svc); err != nil {
			return ctrl.Result{}, err
		}
	}
	conds := append(exp.Status.Conditions[:0:0], exp.Status.Conditions...)
	if !serviceexport.SetConditions(&conds, serviceexport.ValidCondition(v, exp.Generation), serviceexport.ReadyCondition(v, addrs, exp.Generation)) {
		return statuswrite.New(controllerName, r.Client).Unchanged()
	}
	exp.Status.Conditions = conds
	// The update carries the resourceVersion read: if the leader wrote its
	// Conflict condition meanwhile, this fails and is retried on fresh data.
	res, err := statuswrite.New(controllerName, r.Client).Write(ctx, exp, "ServiceExport", start)
	if err == nil && res.IsZero() {
		log.FromContext(ctx).V(1).Info("Export conditions written", "valid", v.Reason, "addressType", addrs.Type)
	}
	return res, err
}

// addresses reads what ChooseAddresses needs: the Service's EndpointSlices
// and, for node ports, the nodes.
func (r *Reconciler) addresses(ctx context.Context, exp *mcsv1beta1.ServiceExport, svc *corev1.Service) (serviceexport.Addresses, error) {
	slices := &discoveryv1.EndpointSliceList{}
	if err := r.List(ctx, slices, client.InNamespace(svc.Namespace), client.MatchingLabels{discoveryv1.LabelServiceName: svc.Name}); err != nil {
		return serviceexport.Addresses{}, fmt.Errorf("listing the EndpointSlices of %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	nodes := &corev1.NodeList{}
	if serviceexport.NeedsNodes(exp, svc) {
		if err := r.List(ctx, nodes); err != nil {
			return serviceexport.Addresses{}, fmt.Errorf("listing nodes: %w", err)
		}
	}
	return serviceexport.ChooseAddresses(svc, serviceexport.IsFlat(exp.Annotations), slices.Items, nodes.Items), nil
}

// controllerName names the controller in the manager and in its metrics.
const controllerName = "serviceexport-status"
