package fedpolicy

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
)

// exportVMService puts a Service in front of a VM of member-1 (vmService)
// and exports it over the flat network, naming the VM's VPC as the
// network of its address, as its admin would.
func exportVMService(t *testing.T, name, vmName string) {
	t.Helper()
	svc, slice := vmService(name, vm(t, vmName).IP)
	create(t, "member-1", svc, slice)
	exportFlat(t, name, vmName)
	t.Cleanup(func() {
		_, _ = sbx.run(context.WithoutCancel(t.Context()), "service", "unexport", name, "-n", ns, "--context", "member-1")
	})
}

func exportFlat(t *testing.T, name, vmName string) {
	t.Helper()
	antreaplus(t, "service", "export", name, "-n", ns, "--context", "member-1", "--flat-network", "--network", vmNetwork(t, vmName))
}

// vmNetwork is the network (the VPC's) of an agented VM of member-1.
func vmNetwork(t *testing.T, vmName string) string {
	t.Helper()
	v := &cloudv1alpha1.VirtualMachine{}
	if err := cl("member-1").Get(bg, client.ObjectKey{Namespace: ns, Name: vm(t, vmName).Object}, v); err != nil {
		t.Fatalf("reading the VirtualMachine of %s: %v", vmName, err)
	}
	return inventory.NetworkName(string(v.Spec.Provider), v.Spec.VPCID)
}

func testEgress(t *testing.T) {
	t.Parallel()
	const name = "build-3-egress"
	exportVMService(t, "vm-echo", "dev-build-3")
	from := "azure-dev-build-3"
	expectProbe(t, from, "dev-build-3:8080", connected)
	expectProbe(t, from, "dev-build-2:8080", connected)

	create(t, "member-2", federatedPolicy(ns, name, appliedToVM(azureAccount, "dev-build-3"),
		allowToServices(federatedService("vm-echo")), dropOut("10.0.0.0/8")))
	waitFNP(t, "member-2", ns, name, 30*time.Second, allOf(realized, resolved("member-1")))
	waitProbe(t, from, "dev-build-2:8080", dropped, 30*time.Second)
	expectProbe(t, from, "dev-build-3:8080", connected)

	// What the federated Service offers that the Azure VM reaches:
	// dev-build-3's address (its VPC is declared flat to the VNet), not
	// member-2's cluster-set IP (the VNet is not connected to member-2's
	// cluster network: the status says so).
	imp := &mcsv1beta1.ServiceImport{}
	if err := cl("member-2").Get(bg, client.ObjectKey{Namespace: ns, Name: "vm-echo"}, imp); err != nil || len(imp.Spec.IPs) == 0 {
		t.Fatalf("member-2 has no ServiceImport of vm-echo with a cluster-set IP: %v %+v", err, imp.Spec)
	}
	want := []string{vm(t, "dev-build-3").IP + "/32"}
	if got := derivedCIDRs(t, "member-2", ns, name); !slices.Equal(got, want) {
		t.Errorf("the Groups of fnp-%s hold %v, want %v", name, got, want)
	}
	p := waitFNP(t, "member-2", ns, name, 30*time.Second, realized)
	// (Said once per network of cloud-demo's Azure VMs: prod and dev.)
	if src := p.Status.RemoteSources; len(src) != 1 || !slices.ContainsFunc(src[0].Unusable, func(line string) bool {
		return strings.Contains(line, "the cluster-set IP "+imp.Spec.IPs[0]+" is in network cluster.member-2, which is not connected")
	}) {
		t.Errorf("remote sources %+v: want the cluster-set IP %s said unusable", src, imp.Spec.IPs[0])
	}

	// The Service loses its only exporter: nothing is allowed to it, and
	// the status says what the policy waits for.
	antreaplus(t, "service", "unexport", "vm-echo", "-n", ns, "--context", "member-1")
	waitFNP(t, "member-2", ns, name, 30*time.Second, allOf(resolved(), func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		return conditionIs(p, policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionFalse, "AwaitingRemoteSources")
	}))
	waitProbe(t, from, "dev-build-3:8080", dropped, 30*time.Second)

	// It is exported again.
	exportFlat(t, "vm-echo", "dev-build-3")
	waitFNP(t, "member-2", ns, name, 30*time.Second, allOf(resolved("member-1"), func(p *policyv1alpha1.FederatedNetworkPolicy) error {
		return conditionIs(p, policyv1alpha1.ConditionRemotePeersResolved, metav1.ConditionTrue, "Resolved")
	}))
	waitProbe(t, from, "dev-build-3:8080", connected, 30*time.Second)
	expectProbe(t, from, "dev-build-2:8080", dropped)
}
