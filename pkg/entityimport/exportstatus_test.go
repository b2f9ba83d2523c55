package entityimport

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/entityexport"
	"antreaplus.io/antreaplus/pkg/entityexport/exportstatus"
	"antreaplus.io/antreaplus/test/framework"
)

// The member controller's EntityExport status is tested here, against the
// same clusters as the leader that reads the exports.

// runExportStatus runs the status reconciler in member-1 until the test ends.
func runExportStatus(t *testing.T) {
	t.Helper()
	s, err := scheme.New()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(clusters.Config(t, "member-1"), ctrl.Options{Scheme: s,
		Metrics: metricsserver.Options{BindAddress: "0"}, Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&exportstatus.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// waitStatus waits until the export's status reads want: "<exported> <Valid status>/<reason>".
func waitStatus(t *testing.T, c client.Client, exp *federationv1alpha1.EntityExport, want string) *federationv1alpha1.EntityExport {
	t.Helper()
	got := &federationv1alpha1.EntityExport{}
	framework.Eventually(t, 20*time.Second, func() error {
		if err := c.Get(bg, client.ObjectKeyFromObject(exp), got); err != nil {
			return err
		}
		v := meta.FindStatusCondition(got.Status.Conditions, federationv1alpha1.EntityExportConditionValid)
		if v == nil || got.Status.ObservedGeneration != got.Generation {
			return fmt.Errorf("status of generation %d not written yet: %+v", got.Generation, got.Status)
		}
		if s := fmt.Sprintf("%d %s/%s", got.Status.ExportedEntities, v.Status, v.Reason); s != want {
			return fmt.Errorf("status %q (%s), want %q", s, v.Message, want)
		}
		return nil
	})
	return got
}

func TestExportStatus(t *testing.T) {
	a := clusters.Client(t, "member-1")
	ns := sharedNamespace(t, "status", "member-1")
	createEntity(t, a, ns, "nic-a", web, "10.0.0.1")
	createEntity(t, a, ns, "nic-db", db, "10.0.0.2")
	runExportStatus(t)

	exp := createExport(t, a, ns, "web", map[string]string{"tag.cloud.antreaplus.io/role": "web"})
	waitStatus(t, a, exp, "1 True/Valid")
	all := createExport(t, a, ns, "all", nil)
	waitStatus(t, a, all, "2 True/Valid")

	// A new entity counts; a relabelled one stops counting.
	nic := createEntity(t, a, ns, "nic-b", web, "10.0.0.3")
	waitStatus(t, a, exp, "2 True/Valid")
	framework.Update(t, a, nic, func() { nic.Labels = db })
	waitStatus(t, a, exp, "1 True/Valid")
	waitStatus(t, a, all, "3 True/Valid")

	// An invalid selector says what is wrong; fixed, the export counts again.
	framework.Update(t, a, exp, func() {
		exp.Spec.ExternalEntitySelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Equals", Values: []string{"web"}}}
	})
	bad := waitStatus(t, a, exp, "0 False/"+entityexport.ReasonInvalidSelector)
	if v := meta.FindStatusCondition(bad.Status.Conditions, federationv1alpha1.EntityExportConditionValid); v.ObservedGeneration != bad.Generation {
		t.Errorf("Valid condition of generation %d, export at %d", v.ObservedGeneration, bad.Generation)
	}
	framework.Update(t, a, exp, func() { exp.Spec.ExternalEntitySelector.MatchExpressions = nil })
	waitStatus(t, a, exp, "1 True/Valid")
}
