package cloud

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/pkg/externalentity"
	"antreaplus.io/antreaplus/test/framework"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// TestInventoryFollowsTheCloud imports a VPC's VMs, then changes the cloud
// one way after another and checks that the objects follow within a poll.
func TestInventoryFollowsTheCloud(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	vms := cloud.addVMs(t, 5, "prod", "web", awsemu.InstanceSpec{Tags: map[string]string{"role": "web"}})
	cloud.addVMs(t, 2, "dev", "build", awsemu.InstanceSpec{})
	ctl := startController(t, controllerOptions{}, ns)
	acct := awsAccount(ns, "aws", cloud.url)
	sel := selectorFor(ns, "aws", "aws")
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), acct, sel)

	waitImported(t, c, ns, 5, 5, 5)
	waitCondition(t, c, acct, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	waitCondition(t, c, sel, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	if acct.Status.Selector == nil || acct.Status.LastSuccessfulPollTime == nil {
		t.Errorf("account status %+v", acct.Status)
	}
	// The counts follow the imported objects (counted again when they change).
	framework.Eventually(t, timeout, func() error {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(sel), sel); err != nil {
			return err
		}
		if sel.Status.VirtualMachines != 5 || sel.Status.NetworkInterfaces != 5 {
			return fmt.Errorf("selector counts %+v", sel.Status)
		}
		return nil
	})

	t.Run("no change writes nothing", func(t *testing.T) {
		before := ctl.writes.Total()
		waitPolls(t, 3, func() int { return cloud.emu.Calls("DescribeInstances") })
		if n := ctl.writes.Total() - before; n != 0 {
			t.Fatalf("3 polls with nothing changed wrote %d times: %v", n, ctl.writes.Counts())
		}
	})
	t.Run("new VM", func(t *testing.T) {
		cloud.addVMs(t, 1, "prod", "web-new", awsemu.InstanceSpec{})
		waitImported(t, c, ns, 6, 6, 6)
	})
	t.Run("terminated VM", func(t *testing.T) {
		if err := cloud.emu.Terminate(awsRegion, vms[0].ID); err != nil {
			t.Fatal(err)
		}
		waitImported(t, c, ns, 5, 5, 5)
	})
	t.Run("IP change", func(t *testing.T) {
		if err := cloud.emu.SetPrivateIP(awsRegion, vms[1].ID, "10.10.99.99"); err != nil {
			t.Fatal(err)
		}
		waitEntity(t, c, ns, externalentity.NameForInterface(vms[1].NICs[0]), func(e entity) bool {
			return len(e.Spec.Endpoints) > 0 && e.Spec.Endpoints[0].IP == "10.10.99.99"
		})
	})
	t.Run("tag change, tags that are not label values", func(t *testing.T) {
		tags := map[string]string{"Name": "web-1", "role": "db", "Cost Center": "R&D / 42", "owner": "ops@example.com"}
		if err := cloud.emu.SetTags(awsRegion, vms[1].ID, tags); err != nil {
			t.Fatal(err)
		}
		want, _ := inventory.TagLabels(tags)
		waitEntity(t, c, ns, externalentity.NameForInterface(vms[1].NICs[0]), func(e entity) bool {
			for k, v := range want {
				if e.Labels[k] != v {
					return false
				}
			}
			return e.Labels["tag.cloud.antreaplus.io/role"] == "db"
		})
		if got := entities(t, c, ns, "tag.cloud.antreaplus.io/role", "db"); len(got) != 1 {
			t.Errorf("%d entities selected by role=db; want 1", len(got))
		}
	})
	t.Run("VM moved out of the selection", func(t *testing.T) {
		// A VM keeps its VPC in EC2; the selection moves away from it instead.
		if err := cloud.emu.SetTags(awsRegion, vms[2].ID, map[string]string{"Name": "web-2", "exclude": "yes"}); err != nil {
			t.Fatal(err)
		}
		updated := sel.DeepCopy()
		updated.Spec.VirtualMachines[0].VMMatch = &cloudv1alpha1.EntityMatch{Tags: map[string]string{"role": "web"}}
		if err := c.Patch(t.Context(), updated, client.MergeFrom(sel)); err != nil {
			t.Fatal(err)
		}
		// web-0 terminated, web-1 retagged role=db, web-2 without role: web-3 and web-4 stay.
		waitImported(t, c, ns, 2, 2, 2)
	})
}
