package view

import (
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

func TestCloudsOf(t *testing.T) {
	m := member("ctx-east", "east", false, "", "")
	m.Accounts = []cloudv1alpha1.CloudProviderAccount{{ObjectMeta: metav1.ObjectMeta{Namespace: "t1", Name: "aws", Generation: 1},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS},
		Status: cloudv1alpha1.CloudProviderAccountStatus{Conditions: []metav1.Condition{{Type: cloudv1alpha1.ConditionReady, Status: metav1.ConditionFalse,
			ObservedGeneration: 1, Reason: "AuthFailed", Message: "the cloud refused the credentials"}}}}}
	m.VMs = []cloudv1alpha1.VirtualMachine{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "t1", Name: "i-1", Generation: 1},
			Spec: cloudv1alpha1.VirtualMachineSpec{Provider: cloudv1alpha1.ProviderAWS, CloudName: "build-1", VPCID: "vpc-1", EnforcementMode: cloudv1alpha1.EnforcementAgented},
			Status: cloudv1alpha1.VirtualMachineStatus{Agent: &cloudv1alpha1.VirtualMachineAgentStatus{Version: "v1.2"}, Conditions: []metav1.Condition{
				{Type: cloudv1alpha1.VMConditionAgentConnected, Status: metav1.ConditionTrue, ObservedGeneration: 1},
				{Type: cloudv1alpha1.ConditionPolicyRealized, Status: metav1.ConditionTrue, ObservedGeneration: 1}}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "t1", Name: "i-2", Generation: 2},
			Spec:   cloudv1alpha1.VirtualMachineSpec{Provider: cloudv1alpha1.ProviderAWS, CloudName: "build-2", VPCID: "vpc-1", EnforcementMode: cloudv1alpha1.EnforcementAgentless},
			Status: cloudv1alpha1.VirtualMachineStatus{Conditions: []metav1.Condition{{Type: cloudv1alpha1.ConditionPolicyRealized, Status: metav1.ConditionTrue, ObservedGeneration: 1}}}},
	}
	m.Namespaces = []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "t1", Labels: map[string]string{tenancyv1alpha1.LabelTenant: "true"}}}}
	m.Leases = []coordinationv1.Lease{{ObjectMeta: metav1.ObjectMeta{Namespace: federationv1alpha1.SystemNamespace, Name: tenancyv1alpha1.ClaimLeaseName("t1"),
		Labels: map[string]string{tenancyv1alpha1.LabelLease: tenancyv1alpha1.LeaseClaim, tenancyv1alpha1.LabelTenant: "t1"}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("shared/shared-0"), RenewTime: &metav1.MicroTime{Time: t0}, LeaseDurationSeconds: ptr.To(int32(15))}}}
	v := CloudsOf([]*Member{m}, t0)
	cm := v.Members[0]
	if len(cm.Accounts) != 1 || cm.Accounts[0].Ready != "False" || cm.Accounts[0].Message != "the cloud refused the credentials" {
		t.Errorf("accounts %+v", cm.Accounts)
	}
	if len(cm.VMs) != 2 || cm.VMs[0].Agent != "connected (v1.2)" || cm.VMs[0].Realized != "True" {
		t.Errorf("agented VM %+v", cm.VMs)
	}
	// A condition of an older generation says nothing of the VM now.
	if cm.VMs[1].Agent != "" || cm.VMs[1].Realized != "Unknown" {
		t.Errorf("agentless VM, status of an older generation: %+v", cm.VMs[1])
	}
	if len(cm.Tenants) != 1 || cm.Tenants[0].Tenant != "t1" || cm.Tenants[0].Owner != "shared/shared-0" || cm.Tenants[0].VMs != 2 || cm.Tenants[0].VPCs != 1 ||
		cm.Tenants[0].Kubectl != "kubectl --context ctx-east get namespaces t1 -o yaml" {
		t.Errorf("tenants %+v", cm.Tenants)
	}
}
