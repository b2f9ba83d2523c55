package accountprovider_test

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
)

// An AWS account's configuration read from its Secret (here through a fake
// client; the controller reads without a cache), and the live provider
// built once: ensuring the same configuration again builds nothing. A
// missing Secret is a ConfigError whose reason goes on the account.
func ExampleRead() {
	sch, err := scheme.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "aws-creds"},
		Data: map[string][]byte{"accessKeyID": []byte("AKIDEXAMPLE"), "secretAccessKey": []byte("do-not-print")}}
	reader := fake.NewClientBuilder().WithScheme(sch).WithObjects(secret).Build()
	acct := &cloudv1alpha1.CloudProviderAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "aws"},
		Spec: cloudv1alpha1.CloudProviderAccountSpec{Provider: cloudv1alpha1.ProviderAWS, AWS: &cloudv1alpha1.AWSAccountConfig{
			Regions:     []string{"us-east-1"},
			Credentials: cloudv1alpha1.AWSCredentials{SecretRef: cloudv1alpha1.SecretReference{Name: "aws-creds"}},
		}},
	}
	ctx := context.Background()
	cfg, err := accountprovider.Read(ctx, reader, acct, accountprovider.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Provider, cfg.AWS.AccessKeyID)

	providers := accountprovider.NewSet()
	key := types.NamespacedName{Namespace: "infra", Name: "aws"}
	for range 2 {
		entry, built, err := providers.Ensure(key, cfg)
		fmt.Println("built:", built, "generation:", entry.Generation, err)
	}

	acct.Spec.AWS.Credentials.SecretRef.Name = "missing"
	_, err = accountprovider.Read(ctx, reader, acct, accountprovider.Options{})
	var cerr *accountprovider.ConfigError
	if errors.As(err, &cerr) {
		fmt.Println(cerr.Reason)
	}
	// Output:
	// AWS AKIDEXAMPLE
	// built: true generation: 1 <nil>
	// built: false generation: 1 <nil>
	// SecretNotFound
}
