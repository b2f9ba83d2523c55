package fedpolicy

import (
	"fmt"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/pkg/sandbox"
	"antreaplus.io/antreaplus/pkg/tenancy"
	"antreaplus.io/antreaplus/test/framework"
)

// TestSandboxTenants: 'sandbox up --tenancy' (docs/sandbox.md, "Tenants (--tenancy)"):
// in member-1, each tenant is claimed by a replica of the instance that
// selects it (tenant-hard by its own, the soft ones by the shared
// instance, as cloud-demo), and imports the VMs of its own account's VPC
// only.
func TestSandboxTenants(t *testing.T) {
	st, err := sbx.sb.LoadState()
	if err != nil {
		t.Fatal(err)
	}
	ten := st.Cloud.Tenancy
	if ten == nil || ten.Cluster != "member-1" || len(ten.Tenants) != 3 {
		t.Fatalf("the sandbox's tenancy is %+v, want three tenants in member-1", ten)
	}
	replicas := map[string][]string{} // instance: its replicas
	for _, c := range ten.Controllers {
		replicas[c.Instance] = append(replicas[c.Instance], c.Replica)
	}
	want := map[string]string{st.Cloud.Namespace: sandbox.SharedInstance} // tenant: instance
	for _, tp := range ten.Tenants {
		want[tp.Namespace] = tp.Instance
	}
	if want[sandbox.HardTenant] != sandbox.HardTenant || len(replicas[sandbox.SharedInstance]) != 2 {
		t.Fatalf("tenants %v, controllers %v: want tenant-hard on its own instance, two shared replicas", want, replicas)
	}
	c := cl(ten.Cluster)
	framework.Eventually(t, 60*time.Second, func() error {
		for tenant, instance := range want {
			l := &coordinationv1.Lease{}
			if err := c.Get(bg, client.ObjectKey{Namespace: federationv1alpha1.SystemNamespace, Name: tenancyv1alpha1.ClaimLeaseName(tenant)}, l); err != nil {
				return fmt.Errorf("the claim of %s: %w", tenant, err)
			}
			inst, rep := tenancy.SplitHolder(ptr.Deref(l.Spec.HolderIdentity, ""))
			if inst != instance || !slices.Contains(replicas[instance], rep) || l.Labels[tenancyv1alpha1.LabelInstance] != instance {
				return fmt.Errorf("%s is claimed by %q (label %q), want a replica of %s %v", tenant, ptr.Deref(l.Spec.HolderIdentity, ""),
					l.Labels[tenancyv1alpha1.LabelInstance], instance, replicas[instance])
			}
		}
		for _, tp := range ten.Tenants {
			var vms cloudv1alpha1.VirtualMachineList
			if err := c.List(bg, &vms, client.InNamespace(tp.Namespace)); err != nil {
				return err
			}
			if len(vms.Items) == 0 {
				return fmt.Errorf("%s has no VirtualMachine yet", tp.Namespace)
			}
			for _, vm := range vms.Items {
				if tag := vm.Labels[inventory.TagLabelPrefix+"tenant"]; tag != tp.Namespace {
					return fmt.Errorf("%s imported %s, whose tenant tag is %q", tp.Namespace, vm.Name, tag)
				}
			}
		}
		return nil
	})
}
