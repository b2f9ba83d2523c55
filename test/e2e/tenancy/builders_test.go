package tenancy

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	antreav1alpha2 "antreaplus.io/antreaplus/api/antrea/v1alpha2"
	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// Builders of the test's objects.

func secret(ns, name string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		StringData: map[string]string{"accessKeyID": "AKIAEXAMPLE", "secretAccessKey": "example"}}
}

func account(ns, name string) *cloudv1alpha1.CloudProviderAccount {
	return &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS,
			AWS: &cloudv1alpha1.AWSAccountConfig{Regions: []string{"us-east-1"},
				Credentials: cloudv1alpha1.AWSCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: name + "-credentials"}}}},
	}
}

func selector(ns, name string) *cloudv1alpha1.CloudEntitySelector {
	return &cloudv1alpha1.CloudEntitySelector{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cloudv1alpha1.CloudEntitySelectorSpec{
			AccountRef:      cloudv1alpha1.CloudProviderAccountReference{Name: name},
			VirtualMachines: []cloudv1alpha1.VirtualMachineMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{Names: []string{"prod"}}}},
		},
	}
}

// policySpec drops every ingress to the ExternalEntities labelled
// role=web that appliedTo reaches (with namespaces, also outside the
// policy's Namespace).
func policySpec(namespaces *metav1.LabelSelector) antreav1beta1.NetworkPolicySpec {
	drop := antreav1beta1.RuleActionDrop
	return antreav1beta1.NetworkPolicySpec{
		Tier: "application", Priority: 5,
		AppliedTo: []antreav1beta1.AppliedTo{{NamespaceSelector: namespaces,
			ExternalEntitySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "web"}}}},
		Ingress: []antreav1beta1.Rule{{Name: "deny-all", Action: &drop}},
	}
}

func antreaPolicy(ns, name string, namespaces *metav1.LabelSelector) *antreav1beta1.NetworkPolicy {
	return &antreav1beta1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: policySpec(namespaces)}
}

func federatedPolicy(ns, name string) *policyv1alpha1.FederatedNetworkPolicy {
	return &policyv1alpha1.FederatedNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: policySpec(nil)}
}

func clusterPolicy(name string) *antreav1beta1.ClusterNetworkPolicy {
	s := policySpec(&metav1.LabelSelector{})
	return &antreav1beta1.ClusterNetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: antreav1beta1.ClusterNetworkPolicySpec{Tier: s.Tier, Priority: s.Priority, AppliedTo: s.AppliedTo, Ingress: s.Ingress}}
}

// binding binds a ClusterRole to a user in ns.
func binding(ns, name, role, user string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
}

func virtualMachine(ns, name, vpc string) *cloudv1alpha1.VirtualMachine {
	return &cloudv1alpha1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: cloudv1alpha1.VirtualMachineSpec{Provider: cloudv1alpha1.ProviderAWS,
			AccountRef: cloudv1alpha1.CloudProviderAccountReference{Name: "aws"}, CloudID: "i-" + name, VPCID: vpc,
			Region: "us-east-1", State: cloudv1alpha1.VMStateRunning, EnforcementMode: cloudv1alpha1.EnforcementAgented},
	}
}

// entity is an ExternalEntity labelled role=web.
func entity(ns, name, ip string) *antreav1alpha2.ExternalEntity {
	return &antreav1alpha2.ExternalEntity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"role": "web"}},
		Spec: antreav1alpha2.ExternalEntitySpec{Endpoints: []antreav1alpha2.Endpoint{{IP: ip, Name: "eth0"}},
			ExternalNode: "vm-" + name},
	}
}

func serviceExport(ns, name string) *mcsv1beta1.ServiceExport {
	return &mcsv1beta1.ServiceExport{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func deployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}}}}
}
