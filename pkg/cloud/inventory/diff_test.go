package inventory

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(ja) == string(jb)
}

// counts is create/update/delete per kind: VM, NIC, service.
type counts [3][3]int

func planCounts(p Plan) counts {
	n := func(o Objects) [3]int {
		return [3]int{len(o.VirtualMachines), len(o.NetworkInterfaces), len(o.CloudNativeServices)}
	}
	c, u, d := n(p.Create), n(p.Update), n(p.Delete)
	return counts{{c[0], u[0], d[0]}, {c[1], u[1], d[1]}, {c[2], u[2], d[2]}}
}

func TestDiff(t *testing.T) {
	sel := selector([]cloudv1alpha1.VirtualMachineMatch{byVPC("vpc-a")}, cloudv1alpha1.CloudNativeServiceMatch{VPCMatch: &cloudv1alpha1.EntityMatch{IDs: []string{"vpc-a"}}})
	base := func(mods ...func(*provider.Snapshot)) *provider.Snapshot {
		all := []func(*provider.Snapshot){
			withVPC("vpc-a", "prod", nil), withVPC("vpc-b", "dev", nil),
			withVM("i-1", "vpc-a", named("web"), tagged("env", "prod")),
			withVM("i-2", "vpc-a", named("db")),
			withService("arn:aws:rds:us-east-1:1:db:orders", "AWSRDS", "vpc-a"),
		}
		return snapshot("us-east-1", append(all, mods...)...)
	}
	before := withOwners(asStored(Diff(Desired(input(sel, base())), Objects{}, nil).Create))

	for _, tc := range []struct {
		name  string
		snaps []*provider.Snapshot
		stale []string
		want  counts
	}{
		{name: "nothing changed", snaps: []*provider.Snapshot{base()}, want: counts{}},
		{name: "new VM", snaps: []*provider.Snapshot{base(withVM("i-3", "vpc-a"))}, want: counts{{1, 0, 0}, {1, 0, 0}}},
		{name: "IP change", snaps: []*provider.Snapshot{func() *provider.Snapshot {
			s := base()
			withIP("10.0.0.77")(&s.VMs[0])
			return s
		}()}, want: counts{{}, {0, 1, 0}}},
		{name: "tag change", snaps: []*provider.Snapshot{func() *provider.Snapshot {
			s := base()
			tagged("env", "staging")(&s.VMs[0])
			return s
		}()}, want: counts{{0, 1, 0}}},
		{name: "VM terminated", snaps: []*provider.Snapshot{func() *provider.Snapshot {
			s := base()
			s.VMs[1].State = provider.VMTerminated
			return s
		}()}, want: counts{{0, 0, 1}, {0, 0, 1}}},
		{name: "VM moved out of the selection", snaps: []*provider.Snapshot{func() *provider.Snapshot {
			s := base()
			s.VMs[1].VPCID = "vpc-b"
			return s
		}()}, want: counts{{0, 0, 1}, {0, 0, 1}}},
		{name: "service gone", snaps: []*provider.Snapshot{func() *provider.Snapshot {
			s := base()
			s.Services = nil
			return s
		}()}, want: counts{{}, {}, {0, 0, 1}}},
		{name: "region poll failed: nothing deleted", snaps: nil, stale: []string{"us-east-1"}, want: counts{}},
		{name: "region dropped from the account: all deleted", snaps: nil, want: counts{{0, 0, 2}, {0, 0, 2}, {0, 0, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Diff(Desired(input(sel, tc.snaps...)), before, tc.stale)
			if got := planCounts(p); got != tc.want {
				t.Fatalf("create/update/delete per kind = %v; want %v", got, tc.want)
			}
		})
	}
}

func TestDiffUpdateKeepsWhatOthersOwn(t *testing.T) {
	sel := selector([]cloudv1alpha1.VirtualMachineMatch{byVPC("vpc-a")})
	s := snapshot("us-east-1", withVPC("vpc-a", "", nil), withVM("i-1", "vpc-a", tagged("env", "prod", "old", "x")))
	before := withOwners(asStored(Desired(input(sel, s))))
	delete(s.VMs[0].Tags, "old")
	s.VMs[0].Tags["env"] = "staging"
	p := Diff(Desired(input(sel, s)), before, nil)
	if len(p.Update.VirtualMachines) != 1 {
		t.Fatalf("plan %v", planCounts(p))
	}
	vm := p.Update.VirtualMachines[0]
	if vm.ResourceVersion != before.VirtualMachines[0].ResourceVersion || vm.UID == "" || vm.Status.ObservedGeneration != 1 {
		t.Errorf("update lost metadata or status: %+v", vm.ObjectMeta)
	}
	if vm.Labels["someone.else/label"] != "x" || vm.Labels[TagLabelPrefix+"env"] != "staging" {
		t.Errorf("labels = %v; want foreign label kept and env updated", vm.Labels)
	}
	if _, ok := vm.Labels[TagLabelPrefix+"old"]; ok {
		t.Errorf("label of a removed tag kept: %v", vm.Labels)
	}
	if before.VirtualMachines[0].Labels[TagLabelPrefix+"env"] != "prod" {
		t.Error("Diff changed the existing objects it was given")
	}
	// Applying the update makes the next diff empty.
	after := before
	after.VirtualMachines = p.Update.VirtualMachines
	if p := Diff(Desired(input(sel, s)), after, nil); p.Writes() != 0 {
		t.Errorf("after the update: %v", planCounts(p))
	}
}

func TestDiffOwnerReferences(t *testing.T) {
	sel := selector([]cloudv1alpha1.VirtualMachineMatch{byVPC("vpc-a")})
	s := snapshot("us-east-1", withVPC("vpc-a", "", nil), withVM("i-1", "vpc-a"))
	created := Diff(Desired(input(sel, s)), Objects{}, nil).Create
	if len(created.NetworkInterfaces[0].OwnerReferences) != 0 {
		t.Error("owner reference set before the VM exists")
	}
	stored := asStored(created) // the NIC went in without an owner
	p := Diff(Desired(input(sel, s)), stored, nil)
	if len(p.Update.NetworkInterfaces) != 1 || p.Update.NetworkInterfaces[0].OwnerReferences[0].UID != stored.VirtualMachines[0].UID {
		t.Fatalf("plan %v; want the NIC updated with its VM as owner", planCounts(p))
	}
	stored.NetworkInterfaces = p.Update.NetworkInterfaces
	if p := Diff(Desired(input(sel, s)), stored, nil); p.Writes() != 0 {
		t.Errorf("second diff %v; want none", planCounts(p))
	}
}

func TestDiffLeavesObjectsBeingDeleted(t *testing.T) {
	sel := selector([]cloudv1alpha1.VirtualMachineMatch{byVPC("vpc-a")})
	s := snapshot("us-east-1", withVPC("vpc-a", "", nil), withVM("i-1", "vpc-a", tagged("a", "b")))
	stored := asStored(Desired(input(sel, s)))
	now := metav1.Now()
	stored.VirtualMachines[0].DeletionTimestamp = &now
	s.VMs[0].Tags["a"] = "c"
	if p := Diff(Desired(input(sel, s)), stored, nil); len(p.Create.VirtualMachines)+len(p.Update.VirtualMachines)+len(p.Delete.VirtualMachines) != 0 {
		t.Errorf("plan for a VM being deleted: %v", planCounts(p))
	}
}
