package cloud

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/externalentity"
	"antreaplus.io/antreaplus/test/infrastructure/azureemu"
)

// TestExternalEntitiesOfServices runs the ExternalEntity controller on a
// CloudNativeService created directly, as the cloud controller would import
// it (TestAWSServicesImported imports them from the emulator).
func TestExternalEntitiesOfServices(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	startController(t, controllerOptions{}, ns)
	svc := &cloudv1alpha1.CloudNativeService{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-lb-1a2b3c4d", Labels: map[string]string{cloudv1alpha1.LabelSelectorName: "sel"}},
		Spec: cloudv1alpha1.CloudNativeServiceSpec{Provider: cloudv1alpha1.ProviderAWS, Kind: cloudv1alpha1.ServiceKindAWSLoadBalancer,
			AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "aws", Namespace: ns},
			CloudID:    "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/app/web-lb/1a2b", CloudName: "web-lb",
			Region: awsRegion, VPCID: "vpc-0a1b", PrivateIPs: []string{"10.10.0.50", "10.10.1.50"},
			Ports: []cloudv1alpha1.ServicePort{{Name: "https", Protocol: "TCP", Port: 443}}, Tags: map[string]string{"app": "web"}},
	}
	create(t, c, svc)
	name := externalentity.NameForService(svc.Name)
	e := waitEntity(t, c, ns, name, func(e entity) bool { return len(e.Spec.Endpoints) == 2 })
	if len(e.Spec.Ports) != 1 || e.Spec.Ports[0].Port != 443 || e.Spec.Ports[0].Name != "https" ||
		e.Labels[cloudv1alpha1.LabelEntityKind] != "CloudNativeService" || e.Labels["tag.cloud.antreaplus.io/app"] != "web" ||
		e.Labels[cloudv1alpha1.LabelEntityServiceKind] != "AWSLoadBalancer" || e.Spec.ExternalNode == "" {
		t.Errorf("entity %+v", e)
	}
	if o := metav1.GetControllerOf(&e); o == nil || o.Kind != "CloudNativeService" || o.UID != svc.UID {
		t.Errorf("owner %v", o)
	}

	changed := svc.DeepCopy()
	changed.Spec.PrivateIPs = []string{"10.10.2.50"}
	if err := c.Patch(t.Context(), changed, client.MergeFrom(svc)); err != nil {
		t.Fatal(err)
	}
	waitEntity(t, c, ns, name, func(e entity) bool { return len(e.Spec.Endpoints) == 1 && e.Spec.Endpoints[0].IP == "10.10.2.50" })

	if err := c.Delete(t.Context(), changed); err != nil {
		t.Fatal(err)
	}
	waitImported(t, c, ns, 0, 0, 0)
}

// TestAzureInventory imports VMs from the ARM emulator through the Azure
// SDK and checks their entities' labels.
func TestAzureInventory(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAzure(t)
	for _, name := range []string{"web-1", "web-2"} {
		if _, err := cloud.emu.AddVM(azureemu.VMSpec{VNetID: cloud.vnet, Name: name, PublicIP: true,
			Tags: map[string]string{"role": "web", "Cost Center": "R&D / 42"}}); err != nil {
			t.Fatal(err)
		}
	}
	startController(t, controllerOptions{roots: cloud.roots}, ns)
	acct := azureAccount(ns, "azure", cloud)
	create(t, c, secret(ns, "azure-credentials", azureSecretData(cloud)), acct, selectorFor(ns, "azure", "azure", vmsNamed("web-1", "web-2")))
	waitImported(t, c, ns, 2, 2, 2)
	waitCondition(t, c, acct, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	for _, e := range entities(t, c, ns, "tag.cloud.antreaplus.io/role", "web") {
		if len(e.Spec.Endpoints) != 2 || e.Labels[cloudv1alpha1.LabelEntityRegion] != azureRegion || e.Labels[cloudv1alpha1.LabelEntityVPC] == "" {
			t.Errorf("entity %s: endpoints %v labels %v", e.Name, e.Spec.Endpoints, e.Labels)
		}
		for k, v := range e.Labels {
			if len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(v)) > 0 {
				t.Errorf("entity %s: label %s=%s is not valid", e.Name, k, v)
			}
		}
	}
	if n := len(entities(t, c, ns, "tag.cloud.antreaplus.io/role", "web")); n != 2 {
		t.Errorf("%d entities selected by role=web; want 2", n)
	}
}
