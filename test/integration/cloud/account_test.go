package cloud

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// noSecretsShown fails the test if a secret value appears in the status of
// an account or selector, or in an event, of ns, or in the controllers'
// logs.
func noSecretsShown(t *testing.T, c client.Client, ns string, secrets ...string) {
	t.Helper()
	var accts cloudv1alpha1.CloudProviderAccountList
	var sels cloudv1alpha1.CloudEntitySelectorList
	var events corev1.EventList
	for _, l := range []client.ObjectList{&accts, &sels, &events} {
		if err := c.List(t.Context(), l, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := json.Marshal([]any{accts.Items, sels.Items, events.Items})
	logged := logs.String()
	if !strings.Contains(logged, ns) {
		t.Errorf("the controllers' logs say nothing of %s: are they captured?", ns)
	}
	for _, s := range secrets {
		if strings.Contains(string(raw), s) {
			t.Errorf("a secret value shows in the status or events of %s", ns)
		}
		if strings.Contains(logged, s) {
			t.Errorf("a secret value shows in the controllers' logs")
		}
	}
}

func updateSecret(t *testing.T, c client.Client, ns, name string, data map[string]string) {
	t.Helper()
	s := &corev1.Secret{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	s.Data, s.StringData = nil, data
	if err := c.Update(t.Context(), s); err != nil {
		t.Fatal(err)
	}
}

func TestBadCredentials(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	cloud.addVMs(t, 2, "prod", "web", awsemu.InstanceSpec{})
	startController(t, controllerOptions{}, ns)
	acct := awsAccount(ns, "aws", cloud.url)
	wrong := map[string]string{"accessKeyID": awsKeyID, "secretAccessKey": "wrong-secret-never-shown"}
	create(t, c, secret(ns, "aws-credentials", wrong), acct, selectorFor(ns, "aws", "aws"))

	cond := waitCondition(t, c, acct, cloudv1alpha1.AccountConditionCredentialsValid, metav1.ConditionFalse, cloudv1alpha1.AccountReasonAuthenticationFailed)
	if !strings.Contains(cond.Message, "AuthFailure") {
		t.Errorf("message %q lacks the cloud's error", cond.Message)
	}
	waitCondition(t, c, acct, cloudv1alpha1.ConditionReady, metav1.ConditionFalse, cloudv1alpha1.AccountReasonAuthenticationFailed)
	if o := imported(t, c, ns); o.Len() != 0 {
		t.Errorf("%d objects imported with refused credentials", o.Len())
	}
	noSecretsShown(t, c, ns, "wrong-secret-never-shown", awsSecret)

	updateSecret(t, c, ns, "aws-credentials", awsSecretData())
	waitCondition(t, c, acct, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	waitImported(t, c, ns, 2, 2, 2)
	noSecretsShown(t, c, ns, "wrong-secret-never-shown", awsSecret)
}

func TestAzureBadCredentials(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAzure(t)
	startController(t, controllerOptions{roots: cloud.roots}, ns)
	acct := azureAccount(ns, "azure", cloud)
	data := azureSecretData(cloud)
	data["clientSecret"] = "wrong-azure-secret-never-shown"
	create(t, c, secret(ns, "azure-credentials", data), acct)

	cond := waitCondition(t, c, acct, cloudv1alpha1.AccountConditionCredentialsValid, metav1.ConditionFalse, cloudv1alpha1.AccountReasonAuthenticationFailed)
	if !strings.Contains(cond.Message, "AADSTS7000215") {
		t.Errorf("message %q lacks the cloud's error", cond.Message)
	}
	noSecretsShown(t, c, ns, "wrong-azure-secret-never-shown", azureSecret)
	updateSecret(t, c, ns, "azure-credentials", azureSecretData(cloud))
	waitCondition(t, c, acct, cloudv1alpha1.AccountConditionCredentialsValid, metav1.ConditionTrue, "Verified")
	// No selector is bound: the account is polled, nothing is imported.
	waitCondition(t, c, acct, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	if o := imported(t, c, ns); o.Len() != 0 {
		t.Errorf("%d objects imported without a selector", o.Len())
	}
}

func TestSecretMissingOrWrongKey(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	cloud.addVMs(t, 1, "prod", "web", awsemu.InstanceSpec{})
	startController(t, controllerOptions{}, ns)
	acct := awsAccount(ns, "aws", cloud.url)
	create(t, c, acct, selectorFor(ns, "aws", "aws"))

	cond := waitCondition(t, c, acct, cloudv1alpha1.AccountConditionCredentialsValid, metav1.ConditionFalse, cloudv1alpha1.AccountReasonSecretNotFound)
	if !strings.Contains(cond.Message, ns+"/aws-credentials not found") {
		t.Errorf("message %q", cond.Message)
	}
	create(t, c, secret(ns, "aws-credentials", map[string]string{"accessKeyId": awsKeyID, "secretAccessKey": awsSecret}))
	cond = waitCondition(t, c, acct, cloudv1alpha1.AccountConditionCredentialsValid, metav1.ConditionFalse, cloudv1alpha1.AccountReasonSecretKeyMissing)
	if !strings.Contains(cond.Message, `"accessKeyID"`) {
		t.Errorf("message %q does not name the missing key", cond.Message)
	}
	updateSecret(t, c, ns, "aws-credentials", awsSecretData())
	waitCondition(t, c, acct, cloudv1alpha1.ConditionReady, metav1.ConditionTrue, "Ready")
	waitImported(t, c, ns, 1, 1, 1)
	noSecretsShown(t, c, ns, awsSecret)
}

func TestRegionThatDoesNotExist(t *testing.T) {
	c, ns := kube(t), clusters.Namespace(t, "member-1")
	cloud := newAWS(t, awsemu.Options{})
	cloud.addVMs(t, 2, "prod", "web", awsemu.InstanceSpec{})
	startController(t, controllerOptions{}, ns)
	acct := awsAccount(ns, "aws", cloud.url, regions(awsRegion, "ap-mars-1"))
	create(t, c, secret(ns, "aws-credentials", awsSecretData()), acct, selectorFor(ns, "aws", "aws"))

	cond := waitCondition(t, c, acct, cloudv1alpha1.AccountConditionInventoryPolled, metav1.ConditionFalse, cloudv1alpha1.AccountReasonRegionUnavailable)
	if !strings.Contains(cond.Message, "ap-mars-1") {
		t.Errorf("message %q does not name the region", cond.Message)
	}
	waitCondition(t, c, acct, cloudv1alpha1.AccountConditionCredentialsValid, metav1.ConditionTrue, "Verified")
	// The region that exists is imported all the same.
	waitImported(t, c, ns, 2, 2, 2)
}
