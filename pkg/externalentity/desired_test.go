package externalentity

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
)

func vm(mode cloudv1alpha1.EnforcementMode, tags map[string]string) *cloudv1alpha1.VirtualMachine {
	return &cloudv1alpha1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Name: "i-0abc", Namespace: "tenant-a"},
		Spec:       cloudv1alpha1.VirtualMachineSpec{EnforcementMode: mode, Tags: tags},
	}
}

func nic() *cloudv1alpha1.NetworkInterface {
	return &cloudv1alpha1.NetworkInterface{
		ObjectMeta: metav1.ObjectMeta{Name: "eni-0abc", Namespace: "tenant-a", UID: "nic-uid", Labels: map[string]string{
			cloudv1alpha1.LabelAccountName: "acct", cloudv1alpha1.LabelSelectorName: "sel", "someone.else/x": "y"}},
		Spec: cloudv1alpha1.NetworkInterfaceSpec{VirtualMachine: "i-0abc", Region: "us-east-1",
			VPCID:      "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/prod",
			PrivateIPs: []string{"10.0.0.5", "10.0.0.6"}, PublicIPs: []string{"198.18.0.1"}, Tags: map[string]string{"role": "db"}},
	}
}

func TestForNetworkInterface(t *testing.T) {
	ee := ForNetworkInterface(nic(), vm(cloudv1alpha1.EnforcementAgented, map[string]string{"role": "web", "team name": "Web & Ops", "env": "prod"}), "ctl")
	if ee.Name != "nic-eni-0abc" || ee.Namespace != "tenant-a" {
		t.Fatalf("name %s/%s", ee.Namespace, ee.Name)
	}
	if o := ee.OwnerReferences; len(o) != 1 || o[0].Kind != "NetworkInterface" || o[0].UID != "nic-uid" || !*o[0].Controller {
		t.Fatalf("owners %v", o)
	}
	want := []antreav1alpha2.Endpoint{{IP: "10.0.0.5", Name: "eni-0abc"}, {IP: "10.0.0.6", Name: "eni-0abc"}, {IP: "198.18.0.1", Name: "eni-0abc"}}
	if len(ee.Spec.Endpoints) != 3 || ee.Spec.Endpoints[2] != want[2] || ee.Spec.Endpoints[0] != want[0] {
		t.Fatalf("endpoints %v", ee.Spec.Endpoints)
	}
	if ee.Spec.ExternalNode != "i-0abc" {
		t.Errorf("agented VM's externalNode = %q; want the VM", ee.Spec.ExternalNode)
	}
	l := ee.Labels
	for k, v := range map[string]string{
		cloudv1alpha1.LabelEntityKind: "VirtualMachine", cloudv1alpha1.LabelEntityName: "i-0abc", cloudv1alpha1.LabelEntityNamespace: "tenant-a", cloudv1alpha1.LabelEntityRegion: "us-east-1",
		cloudv1alpha1.LabelEntityNetworkInterface: "eni-0abc", cloudv1alpha1.LabelAccountName: "acct", cloudv1alpha1.LabelSelectorName: "sel",
		"tag.cloud.antreaplus.io/role": "db", "tag.cloud.antreaplus.io/env": "prod",
		cloudv1alpha1.LabelEntityVPC: inventory.ObjectName(nic().Spec.VPCID, ""),
	} {
		if l[k] != v {
			t.Errorf("label %s = %q; want %q", k, l[k], v)
		}
	}
	if !strings.HasPrefix(l[cloudv1alpha1.LabelEntityVPC], "prod-") {
		t.Errorf("VNet label %q does not start with the VNet's name", l[cloudv1alpha1.LabelEntityVPC])
	}
	if _, ok := l["someone.else/x"]; ok {
		t.Error("foreign label of the source copied")
	}
	for k, v := range l {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			t.Errorf("label key %q: %v", k, errs)
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("label %s value %q: %v", k, v, errs)
		}
	}
	if ForNetworkInterface(nic(), vm(cloudv1alpha1.EnforcementAgentless, nil), "ctl").Spec.ExternalNode != "ctl" {
		t.Error("agentless VM not handled by the controller's node")
	}
	if got := ForNetworkInterface(nic(), nil, "ctl"); got.Labels[cloudv1alpha1.LabelEntityName] != "i-0abc" || got.Labels["tag.cloud.antreaplus.io/role"] != "db" {
		t.Errorf("without its VM: %v", got.Labels)
	}
}

func TestForCloudNativeService(t *testing.T) {
	svc := &cloudv1alpha1.CloudNativeService{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1a2b3c4d", Namespace: "tenant-a"},
		Spec: cloudv1alpha1.CloudNativeServiceSpec{Kind: cloudv1alpha1.ServiceKindAWSLoadBalancer, Region: "us-east-1", VPCID: "vpc-1",
			PrivateIPs: []string{"10.0.9.9"}, Ports: []cloudv1alpha1.ServicePort{{Name: "https", Protocol: "TCP", Port: 443}, {Name: "Not A Port Name!", Port: 80}}},
	}
	ee := ForCloudNativeService(svc, "ctl")
	if ee.Name != "svc-web-1a2b3c4d" || ee.Labels[cloudv1alpha1.LabelEntityKind] != "CloudNativeService" || ee.Labels[cloudv1alpha1.LabelEntityServiceKind] != "AWSLoadBalancer" || ee.Labels[cloudv1alpha1.LabelEntityVPC] != "vpc-1" {
		t.Fatalf("entity %s labels %v", ee.Name, ee.Labels)
	}
	want := []antreav1alpha2.NamedPort{{Protocol: "TCP", Port: 443, Name: "https"}, {Protocol: "TCP", Port: 80}}
	if len(ee.Spec.Ports) != 2 || ee.Spec.Ports[0] != want[0] || ee.Spec.Ports[1] != want[1] {
		t.Fatalf("ports %v", ee.Spec.Ports)
	}
}

func TestUpToDate(t *testing.T) {
	want := ForNetworkInterface(nic(), nil, "ctl")
	have := want.DeepCopy()
	have.Labels["other.io/keep"] = "x"
	have.ResourceVersion = "7"
	if !upToDate(want, have) {
		t.Fatal("a foreign label made it stale")
	}
	have.Labels["tag.cloud.antreaplus.io/gone"] = "x"
	if upToDate(want, have) {
		t.Fatal("a stale tag label went unnoticed")
	}
}
