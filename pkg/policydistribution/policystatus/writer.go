package policystatus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	"antreaplus.io/antreaplus/pkg/policycompiler"
	"antreaplus.io/antreaplus/pkg/policydistribution"
	"antreaplus.io/antreaplus/pkg/policydistribution/wire"
	"antreaplus.io/antreaplus/pkg/policyrules"
)

// Compiler tells what the compiler made of a policy. *feeder.Feeder is one.
type Compiler interface {
	PolicyStatus(ref policyrules.PolicyRef) (policycompiler.PolicyStatus, int64, bool)
}

// Reports are what the enforcement points reported. *policydistribution.Server
// is one.
type Reports interface {
	Agent(vm types.NamespacedName) (policydistribution.AgentStatus, bool)
	Agentless() (policydistribution.AgentlessStatus, bool)
}

// Writer writes the status of every policy when its enforcement changes.
// It is a manager.Runnable (it needs leader election, as the hub does).
type Writer struct {
	Client   client.Client
	Hub      *policydistribution.Hub
	Reports  Reports
	Compiler Compiler
	// AgentlessNode is the externalNode of agentless enforcement points.
	AgentlessNode string
	// Interval is how often it looks for changes (default 1 s); Resync how
	// often it computes every status anyway (default 30 s).
	Interval, Resync time.Duration
	Log              logr.Logger

	dirty atomic.Bool
}

// Changed asks for the statuses to be computed again: an agent or the
// agentless consumer reported.
func (w *Writer) Changed() { w.dirty.Store(true) }

// Start writes statuses until ctx ends.
func (w *Writer) Start(ctx context.Context) error {
	interval, resync := w.Interval, w.Resync
	if interval <= 0 {
		interval = time.Second
	}
	if resync <= 0 {
		resync = 30 * time.Second
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	var lastGen uint64
	var lastFull time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
		gen := w.Hub.Generation()
		if !w.dirty.Swap(false) && gen == lastGen && time.Since(lastFull) < resync {
			continue
		}
		if err := w.WriteAll(ctx); err != nil {
			w.Log.Error(err, "Writing policy statuses; retrying")
			w.dirty.Store(true)
			continue
		}
		lastGen, lastFull = gen, time.Now()
	}
}

// The policy controller writes the status of Antrea policies (chart:
// files/rbac/policy-controller.yaml).
// +kubebuilder:rbac:groups=crd.antrea.io,resources=networkpolicies;clusternetworkpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=crd.antrea.io,resources=networkpolicies/status;clusternetworkpolicies/status,verbs=update

// WriteAll computes the status of every policy and writes those that
// changed.
func (w *Writer) WriteAll(ctx context.Context) error {
	points := w.points()
	var errs []error
	writes := 0
	var nps antreav1beta1.NetworkPolicyList
	if err := w.Client.List(ctx, &nps); err != nil {
		return fmt.Errorf("listing NetworkPolicies: %w", err)
	}
	for i := range nps.Items {
		p := &nps.Items[i]
		ref := policyrules.PolicyRef{Kind: policyrules.KindNetworkPolicy, Namespace: p.Namespace, Name: p.Name}
		wrote, err := w.write(ctx, p, &p.Status, ref, points)
		errs, writes = append(errs, err), writes+wrote
	}
	var cnps antreav1beta1.ClusterNetworkPolicyList
	if err := w.Client.List(ctx, &cnps); err != nil {
		return fmt.Errorf("listing ClusterNetworkPolicies: %w", err)
	}
	for i := range cnps.Items {
		p := &cnps.Items[i]
		ref := policyrules.PolicyRef{Kind: policyrules.KindClusterNetworkPolicy, Name: p.Name}
		wrote, err := w.write(ctx, p, &p.Status, ref, points)
		errs, writes = append(errs, err), writes+wrote
	}
	if writes > 0 {
		w.Log.V(1).Info("Wrote policy statuses", "writes", writes, "policies", len(nps.Items)+len(cnps.Items))
	}
	return errors.Join(errs...)
}

// write computes one policy's status into st (the object's) and writes
// obj when it changed.
func (w *Writer) write(ctx context.Context, obj client.Object, st *antreav1beta1.NetworkPolicyStatus, ref policyrules.PolicyRef,
	points map[policyrules.PolicyRef][]Point) (int, error) {
	in := Input{Points: points[ref]}
	if compiled, gen, ok := w.Compiler.PolicyStatus(ref); ok {
		in.Compiled, in.Generation = &compiled, gen
	}
	want := Compute(in, st, metav1.Now())
	if equality.Semantic.DeepEqual(*st, want) {
		return 0, nil
	}
	*st = want
	if err := w.Client.Status().Update(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return 0, fmt.Errorf("writing the status of %s: %w", ref, err)
	}
	return 1, nil
}

// endpointInfo is what the hub holds of one endpoint that statuses need.
type endpointInfo struct {
	name, node string
	generation uint64
	policies   []wire.PolicyRef
}

// points returns the enforcement points of every policy.
func (w *Writer) points() map[policyrules.PolicyRef][]Point {
	var eps []endpointInfo
	w.Hub.EachEndpoint(func(node string, ep *wire.Endpoint) {
		info := endpointInfo{name: ep.Name, node: node, generation: ep.Generation}
		for _, id := range ep.Order {
			ref := ep.Rules[id].Policy
			if len(info.policies) == 0 || info.policies[len(info.policies)-1] != ref {
				info.policies = append(info.policies, ref)
			}
		}
		eps = append(eps, info)
	})
	target := Target{Epoch: w.Hub.Epoch()}
	agentless, agentlessKnown := w.Reports.Agentless()
	out := map[policyrules.PolicyRef][]Point{}
	for _, ep := range eps {
		target.Generation = ep.generation
		seen := map[wire.PolicyRef]bool{}
		var agentPoint *Point
		for _, ref := range ep.policies {
			if seen[ref] {
				continue
			}
			seen[ref] = true
			var p Point
			if ep.node == w.AgentlessNode {
				p = AgentlessPoint(ep.name, ref, agentless, agentlessKnown, target)
			} else {
				if agentPoint == nil {
					ns, _, _ := strings.Cut(ep.name, "/")
					vm := types.NamespacedName{Namespace: ns, Name: ep.node}
					a, known := w.Reports.Agent(vm)
					ap := AgentPoint(ep.name, vm.String(), a, known, target)
					agentPoint = &ap
				}
				p = *agentPoint
			}
			key := policyrules.PolicyRef{Kind: policyrules.PolicyKind(ref.Kind), Namespace: ref.Namespace, Name: ref.Name}
			out[key] = append(out[key], p)
		}
	}
	return out
}
