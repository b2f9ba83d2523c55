package cloud

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

func TestTwoSelectorsOnOneAccount(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	cloud.addVMs(t, 3, "prod", "web", awsemu.InstanceSpec{})
	startController(t, controllerOptions{}, ns)
	acct := awsAccount(ns, "aws", cloud.url)
	first, second := selectorFor(ns, "first", "aws"), selectorFor(ns, "second", "aws")
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), acct, first)
	waitCondition(t, c, first, cloudv1alpha1.SelectorConditionAccepted, metav1.ConditionTrue, cloudv1alpha1.SelectorReasonAccepted)
	create(t, c, second)

	cond := waitCondition(t, c, second, cloudv1alpha1.SelectorConditionAccepted, metav1.ConditionFalse, cloudv1alpha1.SelectorReasonAccountInUse)
	if !strings.Contains(cond.Message, ns+"/first") {
		t.Errorf("message %q does not name the bound selector", cond.Message)
	}
	waitCondition(t, c, second, cloudv1alpha1.ConditionReady, metav1.ConditionFalse, cloudv1alpha1.SelectorReasonAccountInUse)
	waitImportedBy(t, c, ns, "first", 3)
	framework.Eventually(t, timeout, func() error {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(acct), acct); err != nil {
			return err
		}
		if s := acct.Status.Selector; s == nil || s.Name != "first" {
			return fmt.Errorf("account bound to %v; want first", s)
		}
		return nil
	})

	// The second takes over once the first is gone, and its imports with it.
	if err := c.Delete(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, c, second, cloudv1alpha1.SelectorConditionAccepted, metav1.ConditionTrue, cloudv1alpha1.SelectorReasonAccepted)
	waitImportedBy(t, c, ns, "second", 3)
}

// waitImportedBy waits until ns holds exactly n VMs and n interfaces, all
// imported by the selector named sel.
func waitImportedBy(t *testing.T, c client.Client, ns, sel string, n int) {
	t.Helper()
	framework.Eventually(t, timeout, func() error {
		o := imported(t, c, ns)
		if len(o.VirtualMachines) != n || len(o.NetworkInterfaces) != n {
			return fmt.Errorf("%d VMs, %d NICs; want %d", len(o.VirtualMachines), len(o.NetworkInterfaces), n)
		}
		for _, v := range o.VirtualMachines {
			if v.Labels[cloudv1alpha1.LabelSelectorName] != sel || v.DeletionTimestamp != nil {
				return fmt.Errorf("VM %s imported by %q", v.Name, v.Labels[cloudv1alpha1.LabelSelectorName])
			}
		}
		return nil
	})
}

func TestSelectorWithMissingAccount(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	cloud.addVMs(t, 2, "prod", "web", awsemu.InstanceSpec{})
	startController(t, controllerOptions{}, ns)
	sel := selectorFor(ns, "aws", "aws")
	create(t, c, sel)

	cond := waitCondition(t, c, sel, cloudv1alpha1.SelectorConditionAccepted, metav1.ConditionFalse, cloudv1alpha1.SelectorReasonAccountNotFound)
	if !strings.Contains(cond.Message, "CloudProviderAccount "+ns+"/aws not found") {
		t.Errorf("message %q", cond.Message)
	}
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), awsAccount(ns, "aws", cloud.url))
	waitCondition(t, c, sel, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	waitImported(t, c, ns, 2, 2, 2)
}

func TestCrossNamespaceSelector(t *testing.T) {
	c := kube(t)
	owner, tenant := clusters.Namespace(t, "member-1"), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	cloud.addVMs(t, 2, "prod", "web", awsemu.InstanceSpec{})
	startController(t, controllerOptions{}, owner, tenant)
	acct := awsAccount(owner, "aws", cloud.url)
	sel := selectorFor(tenant, "aws", "aws", inNamespace(owner))
	create(t, c, secret(owner, "aws-credentials", awsSecretData()), acct, sel)

	cond := waitCondition(t, c, sel, cloudv1alpha1.SelectorConditionAccepted, metav1.ConditionFalse, cloudv1alpha1.SelectorReasonNamespaceNotAllowed)
	if !strings.Contains(cond.Message, "allowedSelectorNamespaces") {
		t.Errorf("message %q does not say how to allow it", cond.Message)
	}
	if o := imported(t, c, tenant); o.Len() != 0 {
		t.Fatalf("%d objects imported for a refused selector", o.Len())
	}
	allowed := acct.DeepCopy()
	allowing(tenant)(allowed)
	if err := c.Patch(t.Context(), allowed, client.MergeFrom(acct)); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, c, sel, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	waitImported(t, c, tenant, 2, 2, 2)

	// Taking the permission back removes what was imported.
	revoked := allowed.DeepCopy()
	revoked.Spec.AllowedSelectorNamespaces = nil
	if err := c.Patch(t.Context(), revoked, client.MergeFrom(allowed)); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, c, sel, cloudv1alpha1.SelectorConditionAccepted, metav1.ConditionFalse, cloudv1alpha1.SelectorReasonNamespaceNotAllowed)
	waitImported(t, c, tenant, 0, 0, 0)
}
