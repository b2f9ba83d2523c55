package policydistribution

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

func tokenSecret(namespace, name string, typ corev1.SecretType, vm, token string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Type: typ,
		Data: map[string][]byte{policyv1alpha1.TokenSecretKey: []byte(token)}}
	if vm != "" {
		s.Annotations = map[string]string{policyv1alpha1.AnnotationTokenVirtualMachine: vm}
	}
	return s
}

func TestTokensIdentifyOnlyWhatTheirSecretsAllow(t *testing.T) {
	tokens := NewTokens("system")
	good, other := NewToken(), NewToken()
	cases := []struct {
		name   string
		secret *corev1.Secret
		token  string
		want   Identity
		ok     bool
	}{
		{"agent token", tokenSecret("tenant", "t1", policyv1alpha1.SecretTypeAgentToken, "vm-1", good), good,
			Identity{Kind: IdentityAgent, VirtualMachine: types.NamespacedName{Namespace: "tenant", Name: "vm-1"}}, true},
		{"agent token without a VM", tokenSecret("tenant", "t2", policyv1alpha1.SecretTypeAgentToken, "", NewToken()), "", Identity{}, false},
		{"agentless token in the controller's namespace", tokenSecret("system", "a", policyv1alpha1.SecretTypeAgentlessToken, "", other), other,
			Identity{Kind: IdentityAgentless}, true},
		{"agentless token elsewhere", tokenSecret("tenant", "a", policyv1alpha1.SecretTypeAgentlessToken, "", "x"+other), "x" + other, Identity{}, false},
		{"opaque Secret", tokenSecret("tenant", "o", corev1.SecretTypeOpaque, "vm-1", "y"+good), "y" + good, Identity{}, false},
		{"short token", tokenSecret("tenant", "s", policyv1alpha1.SecretTypeAgentToken, "vm-1", "short"), "short", Identity{}, false},
	}
	for _, c := range cases {
		tokens.SetSecret(c.secret)
		if c.token == "" {
			continue
		}
		got, ok := tokens.Authenticate(c.token)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	// Rotating a Secret's token revokes the old one; deleting it revokes all.
	rotated := NewToken()
	tokens.SetSecret(tokenSecret("tenant", "t1", policyv1alpha1.SecretTypeAgentToken, "vm-1", rotated))
	if _, ok := tokens.Authenticate(good); ok {
		t.Error("the old token still works after rotation")
	}
	if _, ok := tokens.Authenticate(rotated); !ok {
		t.Error("the rotated token does not work")
	}
	tokens.DeleteSecret(types.NamespacedName{Namespace: "tenant", Name: "t1"})
	if _, ok := tokens.Authenticate(rotated); ok {
		t.Error("the token works after its Secret was deleted")
	}
}
