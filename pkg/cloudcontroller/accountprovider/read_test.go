package accountprovider

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
)

const secretValue = "s3cr3t-value-never-shown"

func awsAccount(mods ...func(*cloudv1alpha1.AWSAccountConfig)) *cloudv1alpha1.CloudProviderAccount {
	a := &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "acct", Namespace: "tenant-a"},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS, AWS: &cloudv1alpha1.AWSAccountConfig{
			Regions: []string{"us-east-1"}, Endpoint: "http://127.0.0.1:1",
			Credentials: cloudv1alpha1.AWSCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: "creds"}},
		}},
	}
	for _, m := range mods {
		m(a.Spec.AWS)
	}
	return a
}

func secretOf(ns, name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func TestRead(t *testing.T) {
	good := map[string]string{"accessKeyID": "AKIAEXAMPLE", "secretAccessKey": secretValue}
	for _, tc := range []struct {
		name    string
		account *cloudv1alpha1.CloudProviderAccount
		secret  *corev1.Secret
		opts    Options
		reason  string // "" for success
		message string
	}{
		{"good", awsAccount(), secretOf("tenant-a", "creds", good), Options{}, "", ""},
		{"missing secret", awsAccount(), nil, Options{}, "SecretNotFound", "Secret tenant-a/creds not found"},
		{"missing key", awsAccount(), secretOf("tenant-a", "creds", map[string]string{"accessKeyID": "AKIA"}), Options{}, "SecretKeyMissing", `no key "secretAccessKey"`},
		{"renamed key", awsAccount(func(c *cloudv1alpha1.AWSAccountConfig) { c.Credentials.SecretAccessKeyKey = "key" }),
			secretOf("tenant-a", "creds", good), Options{}, "SecretKeyMissing", `no key "key"`},
		{"session token key", awsAccount(func(c *cloudv1alpha1.AWSAccountConfig) { c.Credentials.SessionTokenKey = "token" }),
			secretOf("tenant-a", "creds", good), Options{}, "SecretKeyMissing", `no key "token"`},
		{"other namespace refused", awsAccount(func(c *cloudv1alpha1.AWSAccountConfig) { c.Credentials.SecretRef.Namespace = "tenant-b" }),
			secretOf("tenant-b", "creds", good), Options{}, ReasonSecretNamespaceNotAllowed, "outside the account's namespace"},
		{"other namespace allowed", awsAccount(func(c *cloudv1alpha1.AWSAccountConfig) { c.Credentials.SecretRef.Namespace = "tenant-b" }),
			secretOf("tenant-b", "creds", good), Options{AllowCrossNamespaceSecrets: true}, "", ""},
		{"assume role", awsAccount(func(c *cloudv1alpha1.AWSAccountConfig) {
			c.Credentials.AssumeRole = &cloudv1alpha1.AWSAssumeRole{RoleARN: "arn:aws:iam::123456789012:role/x", ExternalID: secretValue}
		}), secretOf("tenant-a", "creds", good), Options{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := fake.NewClientBuilder().WithScheme(scheme.Scheme)
			if tc.secret != nil {
				b = b.WithObjects(tc.secret)
			}
			cfg, err := Read(t.Context(), b.Build(), tc.account, tc.opts)
			var cerr *ConfigError
			switch {
			case tc.reason == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.reason != "" && (!errors.As(err, &cerr) || cerr.Reason != tc.reason || !strings.Contains(cerr.Message, tc.message)):
				t.Fatalf("error = %v; want %s with %q", err, tc.reason, tc.message)
			}
			for _, s := range []string{fmt.Sprint(err), cfg.String(), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg.AWS)} {
				if strings.Contains(s, secretValue) {
					t.Errorf("secret shown in %q", s)
				}
			}
		})
	}
}

func TestEnsureRebuildsOnlyOnChange(t *testing.T) {
	set := NewSet()
	key := types.NamespacedName{Namespace: "tenant-a", Name: "acct"}
	read := func(secret string) Config {
		t.Helper()
		cl := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
			secretOf("tenant-a", "creds", map[string]string{"accessKeyID": "AKIAEXAMPLE", "secretAccessKey": secret})).Build()
		cfg, err := Read(t.Context(), cl, awsAccount(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	e1, changed, err := set.Ensure(key, read("one"))
	if err != nil || !changed {
		t.Fatalf("first Ensure: changed=%v err=%v", changed, err)
	}
	if e2, changed, _ := set.Ensure(key, read("one")); changed || e2.Generation != e1.Generation {
		t.Fatal("same credentials rebuilt the provider")
	}
	if e3, changed, _ := set.Ensure(key, read("two")); !changed || e3.Generation == e1.Generation {
		t.Fatal("rotated secret did not rebuild the provider")
	}
	if !set.Remove(key) || set.Remove(key) {
		t.Fatal("Remove")
	}
	if n := len(set.Events()); n != 3 {
		t.Fatalf("%d events; want 3 (built, rebuilt, removed)", n)
	}
}

func TestReadAzure(t *testing.T) {
	acct := &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "acct", Namespace: "tenant-a"},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAzure, Azure: &cloudv1alpha1.AzureAccountConfig{
			Regions: []string{"eastus"}, Endpoint: "https://127.0.0.1:1", AuthorityHost: "https://127.0.0.1:1",
			Credentials: cloudv1alpha1.AzureCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: "creds"}},
		}},
	}
	data := map[string]string{"subscriptionID": "sub", "tenantID": "tenant", "clientID": "app"}
	cl := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(secretOf("tenant-a", "creds", data)).Build()
	_, err := Read(t.Context(), cl, acct, Options{})
	var cerr *ConfigError
	if !errors.As(err, &cerr) || cerr.Reason != cloudv1alpha1.AccountReasonSecretKeyMissing || !strings.Contains(cerr.Message, `"clientSecret"`) {
		t.Fatalf("error %v; want SecretKeyMissing naming clientSecret", err)
	}
	data["clientSecret"] = secretValue
	cl = fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(secretOf("tenant-a", "creds", data)).Build()
	cfg, err := Read(t.Context(), cl, acct, Options{})
	if err != nil || cfg.Azure.ClientSecret != secretValue || strings.Contains(cfg.String(), secretValue) {
		t.Fatalf("config %s, error %v", cfg, err)
	}
	if _, err := New(cfg); err != nil {
		t.Fatalf("building the Azure provider: %v", err)
	}
}

func TestReadAssumeRole(t *testing.T) {
	cl := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		secretOf("tenant-a", "creds", map[string]string{"accessKeyID": "AKIAEXAMPLE", "secretAccessKey": secretValue})).Build()
	read := func(externalID string) Config {
		t.Helper()
		cfg, err := Read(t.Context(), cl, awsAccount(func(c *cloudv1alpha1.AWSAccountConfig) {
			c.Credentials.AssumeRole = &cloudv1alpha1.AWSAssumeRole{RoleARN: "arn:aws:iam::123456789012:role/x", ExternalID: externalID, SessionName: "me"}
		}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	one, two := read("ext-one"), read("ext-two")
	r := one.AWS.AssumeRole
	if r == nil || r.RoleARN != "arn:aws:iam::123456789012:role/x" || r.ExternalID != "ext-one" || r.SessionName != "me" {
		t.Fatalf("role %+v", r)
	}
	if one.Fingerprint == two.Fingerprint {
		t.Error("a changed external id keeps the fingerprint: the provider would not be rebuilt")
	}
	if strings.Contains(one.String(), "ext-one") || !strings.Contains(one.String(), "role/x") {
		t.Errorf("config prints %s; want the role and not its external id", one)
	}
	if _, err := New(one); err != nil {
		t.Fatalf("building the provider: %v", err)
	}
}
