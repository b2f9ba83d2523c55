package cloud

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloud/inventory"
	"antreaplus.io/antreaplus/pkg/cloudcontroller"
	"antreaplus.io/antreaplus/pkg/externalentity"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// TestAWSServicesImported reads a load balancer and a DB instance from the
// emulator through the ELBv2 and RDS SDKs: the selected ones become
// CloudNativeServices and ExternalEntities with their addresses and ports,
// and follow the cloud's changes.
func TestAWSServicesImported(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	lb, err := cloud.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: awsRegion, VPCID: cloud.vpcs["prod"], Name: "web", Internal: true,
		Listeners: []awsemu.Listener{{Protocol: "HTTPS", Port: 443}}, Tags: map[string]string{"app": "web"}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := cloud.emu.AddDBInstance(awsemu.DBInstanceSpec{Region: awsRegion, VPCID: cloud.vpcs["prod"], Identifier: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	// Not selected: another VPC.
	if _, err := cloud.emu.AddLoadBalancer(awsemu.LoadBalancerSpec{Region: awsRegion, VPCID: cloud.vpcs["dev"], Name: "dev-web"}); err != nil {
		t.Fatal(err)
	}
	startController(t, controllerOptions{opts: func(o *cloudcontroller.Options) { o.Provider.AWSResolver = cloud.emu }}, ns)
	sel := selectorFor(ns, "aws", "aws", func(s *cloudv1alpha1.CloudEntitySelector) {
		s.Spec.VirtualMachines = nil
		s.Spec.CloudNativeServices = []cloudv1alpha1.CloudNativeServiceMatch{{VPCMatch: &cloudv1alpha1.EntityMatch{Names: []string{"prod"}}}}
	})
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), awsAccount(ns, "aws", cloud.url), sel)

	lbEntity := externalentity.NameForService(inventory.ObjectName(lb.ARN, "web"))
	dbEntity := externalentity.NameForService(inventory.ObjectName(db.ARN, "orders"))
	waitImported(t, c, ns, 0, 0, 2)
	e := waitEntity(t, c, ns, lbEntity, func(e entity) bool { return len(e.Spec.Endpoints) == 2 })
	if !slices.Equal(endpointIPs(e), sortedCopy(lb.PrivateIPs)) || len(e.Spec.Ports) != 1 || e.Spec.Ports[0].Port != 443 ||
		e.Labels[cloudv1alpha1.LabelEntityServiceKind] != "AWSLoadBalancer" || e.Labels["tag.cloud.antreaplus.io/app"] != "web" {
		t.Errorf("load balancer entity: labels %v spec %+v", e.Labels, e.Spec)
	}
	e = waitEntity(t, c, ns, dbEntity, func(e entity) bool { return len(e.Spec.Endpoints) == 1 })
	if e.Spec.Endpoints[0].IP != db.PrivateIP || len(e.Spec.Ports) != 1 || e.Spec.Ports[0].Port != 5432 || e.Labels[cloudv1alpha1.LabelEntityServiceKind] != "AWSRDS" {
		t.Errorf("DB entity: labels %v spec %+v", e.Labels, e.Spec)
	}
	svcs := imported(t, c, ns).CloudNativeServices
	if len(svcs) != 2 || svcs[0].Spec.DNSName == "" || svcs[1].Spec.DNSName == "" {
		t.Fatalf("services %+v", svcs)
	}

	// The load balancer moves, the database fails over: one poll each.
	moved, err := cloud.emu.ReplaceLoadBalancerInterfaces(awsRegion, lb.ARN)
	if err != nil {
		t.Fatal(err)
	}
	failedOver, err := cloud.emu.FailOverDBInstance(awsRegion, "orders")
	if err != nil {
		t.Fatal(err)
	}
	waitEntity(t, c, ns, lbEntity, func(e entity) bool { return slices.Equal(endpointIPs(e), sortedCopy(moved.PrivateIPs)) })
	waitEntity(t, c, ns, dbEntity, func(e entity) bool {
		return len(e.Spec.Endpoints) == 1 && e.Spec.Endpoints[0].IP == failedOver.PrivateIP
	})

	// Deleted in the cloud: its service and entity go.
	if err := cloud.emu.DeleteLoadBalancer(awsRegion, lb.ARN); err != nil {
		t.Fatal(err)
	}
	waitImported(t, c, ns, 0, 0, 1)
	if svcs := imported(t, c, ns).CloudNativeServices; len(svcs) != 1 || svcs[0].Spec.Kind != cloudv1alpha1.ServiceKindAWSRDS {
		t.Errorf("services after the deletion: %+v", svcs)
	}
}

func endpointIPs(e entity) []string {
	var out []string
	for _, ep := range e.Spec.Endpoints {
		out = append(out, ep.IP)
	}
	slices.Sort(out)
	return out
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestAWSAssumeRole polls through a role assumed with an external id: a
// wrong one is told in the account's status, the right one imports.
func TestAWSAssumeRole(t *testing.T) {
	const (
		role       = "arn:aws:iam::123456789012:role/antreaplus-reader"
		externalID = "tenant-external-id-never-shown"
	)
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{Roles: []awsemu.Role{{ARN: role, ExternalID: externalID, Trusted: []string{awsKeyID}}}})
	cloud.addVMs(t, 2, "prod", "web", awsemu.InstanceSpec{})
	startController(t, controllerOptions{}, ns)
	acct := awsAccount(ns, "aws", cloud.url, func(a *cloudv1alpha1.CloudProviderAccount) {
		a.Spec.AWS.Credentials.AssumeRole = &cloudv1alpha1.AWSAssumeRole{RoleARN: role, ExternalID: "wrong-external-id", SessionName: "antreaplus-test"}
	})
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), acct, selectorFor(ns, "aws", "aws"))

	cond := waitCondition(t, c, acct, cloudv1alpha1.AccountConditionCredentialsValid, metav1.ConditionFalse, cloudv1alpha1.AccountReasonAuthenticationFailed)
	for _, want := range []string{"cannot assume role " + role, "AccessDenied", "external id"} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("message %q does not say %q", cond.Message, want)
		}
	}
	if o := imported(t, c, ns); o.Len() != 0 {
		t.Errorf("%d objects imported without the role", o.Len())
	}

	// A merge patch, not an update: the controller writes the account's
	// status meanwhile, and an update from a read before it conflicts.
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(acct), acct); err != nil {
		t.Fatal(err)
	}
	fixed := acct.DeepCopy()
	fixed.Spec.AWS.Credentials.AssumeRole.ExternalID = externalID
	if err := c.Patch(t.Context(), fixed, client.MergeFrom(acct)); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, c, acct, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	waitImported(t, c, ns, 2, 2, 2)
	if n := cloud.emu.Sessions(role); n != 1 {
		t.Errorf("%d sessions of the role; want 1, reused across polls", n)
	}
	noSecretsShown(t, c, ns, awsSecret)
	// The external id is in the account's spec, by design, but in no
	// condition and no log.
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(acct), acct); err != nil {
		t.Fatal(err)
	}
	for _, cond := range acct.Status.Conditions {
		if strings.Contains(cond.Message, externalID) {
			t.Errorf("condition %s shows the external id", cond.Type)
		}
	}
	if strings.Contains(logs.String(), externalID) {
		t.Error("the controllers' logs show the external id")
	}
}
