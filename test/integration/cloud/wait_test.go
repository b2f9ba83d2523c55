package cloud

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/inventorysync"
	"antreaplus.io/antreaplus/test/framework"
)

// timeout bounds every wait; bigTimeout the imports of 1500 VMs. Both are
// generous: the machine may be shared with other clusters.
const (
	timeout    = 60 * time.Second
	bigTimeout = 4 * time.Minute
)

// conditions returns the status conditions of an account or selector.
func conditions(o client.Object) []metav1.Condition {
	switch o := o.(type) {
	case *cloudv1alpha1.CloudProviderAccount:
		return o.Status.Conditions
	case *cloudv1alpha1.CloudEntitySelector:
		return o.Status.Conditions
	}
	return nil
}

// waitCondition waits until o (re-read into o) has the condition typ with
// status and reason, and returns it.
func waitCondition(t *testing.T, c client.Client, o client.Object, typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
	t.Helper()
	var got metav1.Condition
	framework.Eventually(t, timeout, func() error {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(o), o); err != nil {
			return err
		}
		cond := meta.FindStatusCondition(conditions(o), typ)
		if cond == nil || cond.Status != status || cond.Reason != reason {
			return fmt.Errorf("%T %s: condition %s is %+v; want %s/%s", o, o.GetName(), typ, cond, status, reason)
		}
		got = *cond
		return nil
	})
	return got
}

// imported lists every imported object of ns.
func imported(t *testing.T, c client.Client, ns string) inventory.Objects {
	t.Helper()
	o, err := inventorysync.ListImported(t.Context(), c, ns, nil)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func entities(t *testing.T, c client.Client, ns string, labels ...string) []antreav1alpha2.ExternalEntity {
	t.Helper()
	var l antreav1alpha2.ExternalEntityList
	match := client.MatchingLabels{}
	for i := 0; i+1 < len(labels); i += 2 {
		match[labels[i]] = labels[i+1]
	}
	if err := c.List(t.Context(), &l, client.InNamespace(ns), match); err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// waitImported waits until ns holds exactly vms VMs, nics interfaces and
// ees ExternalEntities.
func waitImported(t *testing.T, c client.Client, ns string, vms, nics, ees int) inventory.Objects {
	t.Helper()
	return waitImportedWithin(t, timeout, c, ns, vms, nics, ees)
}

func waitImportedWithin(t *testing.T, d time.Duration, c client.Client, ns string, vms, nics, ees int) inventory.Objects {
	t.Helper()
	var o inventory.Objects
	framework.Eventually(t, d, func() error {
		o = imported(t, c, ns)
		e := entities(t, c, ns)
		if len(o.VirtualMachines) != vms || len(o.NetworkInterfaces) != nics || len(e) != ees {
			return fmt.Errorf("%d VMs, %d NICs, %d ExternalEntities; want %d, %d, %d",
				len(o.VirtualMachines), len(o.NetworkInterfaces), len(e), vms, nics, ees)
		}
		return nil
	})
	return o
}

// waitPolls waits until calls() has grown by n.
func waitPolls(t *testing.T, n int, calls func() int) {
	t.Helper()
	start := calls()
	framework.Eventually(t, timeout, func() error {
		if got := calls() - start; got < n {
			return fmt.Errorf("%d polls; want %d", got, n)
		}
		return nil
	})
}

type entity = antreav1alpha2.ExternalEntity

// waitEntity waits until the ExternalEntity ns/name exists and ok(it).
func waitEntity(t *testing.T, c client.Client, ns, name string, ok func(entity) bool) entity {
	t.Helper()
	var e entity
	framework.Eventually(t, timeout, func() error {
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, &e); err != nil {
			return err
		}
		if !ok(e) {
			return fmt.Errorf("ExternalEntity %s/%s not as expected: labels %v spec %+v", ns, name, e.Labels, e.Spec)
		}
		return nil
	})
	return e
}
