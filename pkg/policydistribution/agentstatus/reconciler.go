package agentstatus

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/policydistribution"
)

// Agents is where the reconciler reads what agents reported: the
// distribution server.
type Agents interface {
	Agent(vm types.NamespacedName) (policydistribution.AgentStatus, bool)
}

// Reasons of the conditions this reconciler writes.
const (
	ReasonConnected       = "Connected"
	ReasonDisconnected    = "Disconnected"
	ReasonNeverConnected  = "NotConnected"
	ReasonRealized        = "Realized"
	ReasonApplyFailed     = "ApplyFailed"
	ReasonPending         = "Pending"
	ReasonAgentNotPresent = "AgentNotConnected"
)

// Reconciler writes, on every agented VirtualMachine, what its agent
// reported through the distribution server: status.agent, and the
// AgentConnected and PolicyRealized conditions. It writes only when they
// differ from what the VM holds.
type Reconciler struct {
	Client client.Client
	Agents Agents
	// Started is when the server started: agents are given Grace (default
	// 30 s) to reconnect before a VM without an agent is reported so.
	Started time.Time
	Grace   time.Duration
	// Resync is how often a VM's status is computed again (default 30 s),
	// to notice an agent that falls behind.
	Resync time.Duration

	changes chan event.TypedGenericEvent[client.Object]
}

// The policy controller writes what agents report to their VMs' status
// (chart: files/rbac/policy-controller.yaml).
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=virtualmachines,verbs=get;list;watch
// +kubebuilder:rbac:groups=cloud.antreaplus.io,resources=virtualmachines/status,verbs=update

// SetupWithManager registers the reconciler.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Grace <= 0 {
		r.Grace = 30 * time.Second
	}
	if r.Resync <= 0 {
		r.Resync = 30 * time.Second
	}
	r.changes = make(chan event.TypedGenericEvent[client.Object], 1024)
	return ctrl.NewControllerManagedBy(mgr).
		Named("vm-agent-status").
		For(&cloudv1alpha1.VirtualMachine{}).
		WatchesRawSource(source.Channel(r.changes, &handler.EnqueueRequestForObject{})).
		Complete(r)
}

// Changed asks for the status of a VM to be written again; the server
// calls it when an agent connects, disconnects or reports. It does not
// block: when the queue is full the periodic resync catches up.
func (r *Reconciler) Changed(vm types.NamespacedName) {
	obj := &cloudv1alpha1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: vm.Namespace, Name: vm.Name}}
	select {
	case r.changes <- event.TypedGenericEvent[client.Object]{Object: obj}:
	default:
	}
}

// Reconcile writes one VM's agent status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	vm := &cloudv1alpha1.VirtualMachine{}
	if err := r.Client.Get(ctx, req.NamespacedName, vm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if vm.Spec.EnforcementMode != cloudv1alpha1.EnforcementAgented {
		return ctrl.Result{}, nil
	}
	agent, known := r.Agents.Agent(req.NamespacedName)
	if !known {
		if wait := r.Grace - time.Since(r.Started); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
	}
	want := vm.Status.DeepCopy()
	setStatus(want, vm.Generation, agent, known, r.Started)
	if !equality.Semantic.DeepEqual(&vm.Status, want) {
		vm.Status = *want
		if err := r.Client.Status().Update(ctx, vm); err != nil {
			return ctrl.Result{}, fmt.Errorf("writing the agent status of %s: %w", req.NamespacedName, err)
		}
	}
	return ctrl.Result{RequeueAfter: r.Resync}, nil
}

// setStatus computes the agent's part of a VM's status.
func setStatus(st *cloudv1alpha1.VirtualMachineStatus, generation int64, a policydistribution.AgentStatus, known bool, started time.Time) {
	connected := metav1.Condition{Type: cloudv1alpha1.VMConditionAgentConnected, ObservedGeneration: generation}
	realized := metav1.Condition{Type: cloudv1alpha1.ConditionPolicyRealized, ObservedGeneration: generation,
		Status: metav1.ConditionFalse, Reason: ReasonAgentNotPresent}
	switch {
	case !known:
		connected.Status, connected.Reason = metav1.ConditionFalse, ReasonNeverConnected
		connected.Message = "no VM agent has connected since the policy controller started at " + started.UTC().Format(time.RFC3339)
		realized.Message = "the rules cannot be known to be enforced until the VM agent connects"
	case a.Connected:
		connected.Status, connected.Reason = metav1.ConditionTrue, ReasonConnected
		connected.Message = fmt.Sprintf("connected from %s since %s", a.RemoteAddr, a.ConnectedSince.UTC().Format(time.RFC3339))
	default:
		connected.Status, connected.Reason = metav1.ConditionFalse, ReasonDisconnected
		connected.Message = "the VM agent disconnected; it keeps enforcing the last rules it received"
	}
	if rep := a.Report; known && rep != nil {
		st.Agent = &cloudv1alpha1.VirtualMachineAgentStatus{Version: rep.AgentVersion,
			AppliedPolicyGeneration: int64(rep.AppliedGeneration), Interfaces: rep.Interfaces}
		switch {
		case rep.ApplyError != "":
			realized.Reason, realized.Message = ReasonApplyFailed, "the VM agent could not apply its rules: "+rep.ApplyError
		case a.Behind:
			realized.Reason = ReasonPending
			realized.Message = fmt.Sprintf("the VM agent enforces generation %d; its rules changed at generation %d", rep.AppliedGeneration, a.ScopeGeneration)
		default:
			realized.Status, realized.Reason = metav1.ConditionTrue, ReasonRealized
			realized.Message = fmt.Sprintf("the VM agent enforces its %d rules (generation %d)", rep.AppliedRules, rep.AppliedGeneration)
		}
	} else if known {
		realized.Message = "the VM agent has not reported yet"
	}
	meta.SetStatusCondition(&st.Conditions, connected)
	meta.SetStatusCondition(&st.Conditions, realized)
}
