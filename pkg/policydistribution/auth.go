package policydistribution

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	policyv1alpha1 "antreaplus.io/antreaplus/api/policy/v1alpha1"
)

// IdentityKind says what kind of consumer a request comes from.
type IdentityKind string

const (
	// IdentityAgent is the VM agent of one agented VirtualMachine.
	IdentityAgent IdentityKind = "Agent"
	// IdentityAgentless is the consumer of every agentless VM's rules.
	IdentityAgentless IdentityKind = "Agentless"
)

// Identity is who a request comes from, as its token proves.
type Identity struct {
	Kind IdentityKind
	// VirtualMachine is the agent's VM; empty for IdentityAgentless.
	VirtualMachine types.NamespacedName
}

func (id Identity) String() string {
	if id.Kind == IdentityAgent {
		return "agent of " + id.VirtualMachine.String()
	}
	return string(id.Kind)
}

// Authenticator maps a bearer token to an identity.
type Authenticator interface {
	Authenticate(token string) (Identity, bool)
}

// Tokens is an Authenticator that holds the tokens of Secrets, fed by a
// Secret informer. Tokens are held as SHA-256 digests, and looked up by
// digest, so that the lookup's timing says nothing about the token.
type Tokens struct {
	// Namespace is the controller's namespace, the only one whose
	// agentless consumer token is trusted.
	Namespace string

	mu       sync.RWMutex
	byDigest map[[32]byte]Identity
	bySecret map[types.NamespacedName][32]byte
}

// NewTokens returns an empty token set that trusts agentless consumer
// tokens in namespace.
func NewTokens(namespace string) *Tokens {
	return &Tokens{Namespace: namespace, byDigest: map[[32]byte]Identity{}, bySecret: map[types.NamespacedName][32]byte{}}
}

// Authenticate implements Authenticator.
func (t *Tokens) Authenticate(token string) (Identity, bool) {
	if token == "" {
		return Identity{}, false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	id, ok := t.byDigest[sha256.Sum256([]byte(token))]
	return id, ok
}

// SetSecret records the token of a Secret, or forgets it when the Secret
// no longer holds a valid one.
func (t *Tokens) SetSecret(s *corev1.Secret) {
	key := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
	id, ok := t.identityOf(s)
	token := strings.TrimSpace(string(s.Data[policyv1alpha1.TokenSecretKey]))
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, had := t.bySecret[key]; had {
		delete(t.byDigest, old)
		delete(t.bySecret, key)
	}
	if !ok || len(token) < minTokenLength {
		return
	}
	digest := sha256.Sum256([]byte(token))
	t.byDigest[digest] = id
	t.bySecret[key] = digest
}

// DeleteSecret forgets the token of a deleted Secret.
func (t *Tokens) DeleteSecret(key types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, had := t.bySecret[key]; had {
		delete(t.byDigest, old)
		delete(t.bySecret, key)
	}
}

// minTokenLength refuses tokens too short to be secret.
const minTokenLength = 32

func (t *Tokens) identityOf(s *corev1.Secret) (Identity, bool) {
	switch s.Type {
	case policyv1alpha1.SecretTypeAgentToken:
		vm := s.Annotations[policyv1alpha1.AnnotationTokenVirtualMachine]
		if vm == "" {
			return Identity{}, false
		}
		return Identity{Kind: IdentityAgent, VirtualMachine: types.NamespacedName{Namespace: s.Namespace, Name: vm}}, true
	case policyv1alpha1.SecretTypeAgentlessToken:
		return Identity{Kind: IdentityAgentless}, s.Namespace == t.Namespace
	}
	return Identity{}, false
}

// NewToken returns a random token: 32 bytes, base64url.
func NewToken() string {
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	return base64.RawURLEncoding.EncodeToString(raw[:])
}
