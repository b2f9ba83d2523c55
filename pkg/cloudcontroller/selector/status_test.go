package selector

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/binding"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
)

func TestComputeStatus(t *testing.T) {
	sel := &cloudv1alpha1.CloudEntitySelector{ObjectMeta: metav1.ObjectMeta{Name: "sel", Namespace: "tenant-a", Generation: 2}}
	me := types.NamespacedName{Namespace: "tenant-a", Name: "sel"}
	accepted := binding.Verdict{Accepted: true, Reason: "Accepted", Message: "bound"}
	polled := func(o pollstatus.Outcome) pollstatus.Result {
		o.Selector = me
		return pollstatus.Result{Outcome: o}
	}
	for _, tc := range []struct {
		name                    string
		in                      observed
		accepted, synced, ready string
	}{
		{"in use", observed{verdict: binding.Verdict{Reason: "AccountInUse", Message: "already used"}},
			"False/AccountInUse", "False/NotAccepted", "False/AccountInUse"},
		{"pending", observed{verdict: accepted, regions: []string{"us-east-1"}},
			"True/Accepted", "Unknown/Pending", "Unknown/Pending"},
		{"synced", observed{verdict: accepted, regions: []string{"us-east-1"}, counts: counts{3, 3, 1},
			results: map[string]pollstatus.Result{"us-east-1": polled(pollstatus.Outcome{Reason: "Polled"})}},
			"True/Accepted", "True/Synced", "True/Ready"},
		{"throttled", observed{verdict: accepted, regions: []string{"us-east-1"},
			results: map[string]pollstatus.Result{"us-east-1": polled(pollstatus.Outcome{Reason: "Throttled", Message: "RequestLimitExceeded"})}},
			"True/Accepted", "False/Throttled", "False/Throttled"},
		{"write failed", observed{verdict: accepted, regions: []string{"us-east-1"},
			results: map[string]pollstatus.Result{"us-east-1": polled(pollstatus.Outcome{Reason: "Polled", ApplyError: "forbidden"})}},
			"True/Accepted", "False/ApplyFailed", "False/ApplyFailed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := computeStatus(sel, tc.in)
			got := func(typ string) string {
				c := meta.FindStatusCondition(st.Conditions, typ)
				if c == nil {
					return "missing"
				}
				return string(c.Status) + "/" + c.Reason
			}
			if got("Accepted") != tc.accepted || got("InventorySynced") != tc.synced || got("Ready") != tc.ready {
				t.Fatalf("got %s %s %s; want %s %s %s", got("Accepted"), got("InventorySynced"), got("Ready"), tc.accepted, tc.synced, tc.ready)
			}
			if st.VirtualMachines != int32(tc.in.counts.vms) {
				t.Errorf("VMs %d", st.VirtualMachines)
			}
			again := sel.DeepCopy()
			again.Status = st
			if !equality.Semantic.DeepEqual(computeStatus(again, tc.in), st) {
				t.Error("status not stable")
			}
		})
	}
}
