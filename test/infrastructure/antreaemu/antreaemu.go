package antreaemu

import (
	"context"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tfv1beta1 "antreaplus.io/antreaplus/api/antrea/traceflow/v1beta1"
)

// CRD is a traceflows.crd.antrea.io CRD with Antrea's names, scope and
// status subresource; its schema keeps whatever spec and status hold.
func CRD() *apiextensionsv1.CustomResourceDefinition {
	open := &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: tfv1beta1.CRDName},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: tfv1beta1.GroupVersion.Group, Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: tfv1beta1.Resource, Singular: "traceflow",
				Kind: "Traceflow", ListKind: "TraceflowList", ShortNames: []string{"tf"}},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: tfv1beta1.GroupVersion.Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": *open, "status": *open}}}}},
		},
	}
}

// InstallCRD creates the CRD in cl's cluster, waits until it is served
// and removes it when the test ends.
func InstallCRD(t testing.TB, cl client.WithWatch) {
	t.Helper()
	crd := CRD()
	if err := cl.Create(t.Context(), crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating the Traceflow CRD: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 30*time.Second)
		defer cancel()
		_ = cl.Delete(ctx, CRD())
	})
	deadline := time.Now().Add(time.Minute)
	for {
		var l tfv1beta1.TraceflowList
		err := cl.List(t.Context(), &l)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Traceflow CRD is not served within a minute: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Answer is what the stand-in's datapath observed of a Traceflow: the
// status to write, and whether to answer at all (false: an Antrea that
// never answers).
type Answer func(*tfv1beta1.Traceflow) (tfv1beta1.TraceflowStatus, bool)

// Emulator answers the Traceflows of one cluster.
type Emulator struct {
	mu   sync.Mutex
	seen []tfv1beta1.Traceflow
}

// Start answers every Traceflow created in cl's cluster until the test
// ends: phase Running at once (Antrea has started it), then the answer.
func Start(t testing.TB, cl client.WithWatch, answer Answer) *Emulator {
	t.Helper()
	e := &Emulator{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	w, err := cl.Watch(ctx, &tfv1beta1.TraceflowList{})
	if err != nil {
		t.Fatalf("watching Traceflows: %v", err)
	}
	go func() {
		defer close(done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			tf, ok := ev.Object.(*tfv1beta1.Traceflow)
			if !ok || ev.Type != watch.Added {
				continue
			}
			e.mu.Lock()
			e.seen = append(e.seen, *tf.DeepCopy())
			e.mu.Unlock()
			go e.answer(ctx, t.Errorf, cl, tf.DeepCopy(), answer)
		}
	}()
	return e
}

// answer writes Running, then the answer; errorf reports a failed write.
func (e *Emulator) answer(ctx context.Context, errorf func(string, ...any), cl client.Client, tf *tfv1beta1.Traceflow, answer Answer) {
	tf.Status = tfv1beta1.TraceflowStatus{Phase: tfv1beta1.PhaseRunning, StartTime: ptr.To(metav1.Now()), DataplaneTag: 1}
	if err := cl.Status().Update(ctx, tf); err != nil {
		if ctx.Err() == nil && !apierrors.IsNotFound(err) {
			errorf("antreaemu: Traceflow %s Running: %v", tf.Name, err)
		}
		return
	}
	st, ok := answer(tf)
	if !ok {
		return
	}
	st.StartTime, st.DataplaneTag = tf.Status.StartTime, tf.Status.DataplaneTag
	tf.Status = st
	if err := cl.Status().Update(ctx, tf); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) {
		errorf("antreaemu: Traceflow %s answered: %v", tf.Name, err)
	}
}

// Seen returns the Traceflows created so far, as created.
func (e *Emulator) Seen() []tfv1beta1.Traceflow {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]tfv1beta1.Traceflow(nil), e.seen...)
}

// Succeeded is a Succeeded status whose sending Node observed obs.
func Succeeded(obs ...tfv1beta1.Observation) tfv1beta1.TraceflowStatus {
	return tfv1beta1.TraceflowStatus{Phase: tfv1beta1.PhaseSucceeded,
		Results: []tfv1beta1.NodeResult{{Node: "node-1", Role: "Sender", Timestamp: time.Now().Unix(), Observations: obs}}}
}

// NetworkPolicy is the observation of a NetworkPolicy table (table: one
// of the Table constants) acting on the packet, by a policy and rule as
// Antrea names them ("" when none).
func NetworkPolicy(table string, action tfv1beta1.Action, policy, rule string) tfv1beta1.Observation {
	return tfv1beta1.Observation{Component: tfv1beta1.ComponentNetworkPolicy, ComponentInfo: table, Action: action,
		NetworkPolicy: policy, NetworkPolicyRule: rule}
}
