package cloud

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

// Builders of the objects a user creates, with functional modifiers.

func secret(ns, name string, data map[string]string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data}
}

func awsSecretData() map[string]string {
	return map[string]string{"accessKeyID": awsKeyID, "secretAccessKey": awsSecret}
}

func azureSecretData(c *azureCloud) map[string]string {
	return map[string]string{"subscriptionID": c.emu.SubscriptionID(), "tenantID": c.emu.TenantID(), "clientID": azureClient, "clientSecret": azureSecret}
}

type accountMod func(*cloudv1alpha1.CloudProviderAccount)

func awsAccount(ns, name, endpoint string, mods ...accountMod) *cloudv1alpha1.CloudProviderAccount {
	a := &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS, PollIntervalSeconds: ptr.To[int32](30),
			AWS: &cloudv1alpha1.AWSAccountConfig{Regions: []string{awsRegion}, Endpoint: endpoint,
				Credentials: cloudv1alpha1.AWSCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: name + "-credentials"}}}},
	}
	for _, m := range mods {
		m(a)
	}
	return a
}

func azureAccount(ns, name string, c *azureCloud, mods ...accountMod) *cloudv1alpha1.CloudProviderAccount {
	a := &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAzure,
			Azure: &cloudv1alpha1.AzureAccountConfig{Regions: []string{azureRegion}, Endpoint: c.url, AuthorityHost: c.url,
				Credentials: cloudv1alpha1.AzureCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: name + "-credentials"}}}},
	}
	for _, m := range mods {
		m(a)
	}
	return a
}

func regions(r ...string) accountMod {
	return func(a *cloudv1alpha1.CloudProviderAccount) { a.Spec.AWS.Regions = r }
}

func allowing(ns ...string) accountMod {
	return func(a *cloudv1alpha1.CloudProviderAccount) { a.Spec.AllowedSelectorNamespaces = ns }
}

type selectorMod func(*cloudv1alpha1.CloudEntitySelector)

// selectorFor selects every VM of the prod VPC (VNet) of the account ns/name.
func selectorFor(ns, name, account string, mods ...selectorMod) *cloudv1alpha1.CloudEntitySelector {
	s := &cloudv1alpha1.CloudEntitySelector{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cloudv1alpha1.CloudEntitySelectorSpec{
			AccountRef:      cloudv1alpha1.CloudProviderAccountReference{Name: account},
			VirtualMachines: []cloudv1alpha1.VirtualMachineMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{Names: []string{"prod"}}}},
		},
	}
	for _, m := range mods {
		m(s)
	}
	return s
}

func inNamespace(ns string) selectorMod {
	return func(s *cloudv1alpha1.CloudEntitySelector) { s.Spec.AccountRef.Namespace = ns }
}

func vmsNamed(names ...string) selectorMod {
	return func(s *cloudv1alpha1.CloudEntitySelector) {
		s.Spec.VirtualMachines = []cloudv1alpha1.VirtualMachineMatch{{VMMatch: &cloudv1alpha1.EntityMatch{Names: names}}}
	}
}

func create(t *testing.T, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatalf("creating %T %s/%s: %v", o, o.GetNamespace(), o.GetName(), err)
		}
	}
}
