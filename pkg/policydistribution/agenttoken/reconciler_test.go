package agenttoken

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestSecretNameIsAValidNameForEveryVM(t *testing.T) {
	long := strings.Repeat("a", 253)
	for _, vm := range []string{"web", long, long[:240] + "b"} {
		name := SecretName(vm)
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Errorf("SecretName(%d chars) = %q: %v", len(vm), name, errs)
		}
	}
	if SecretName(long) == SecretName(long[:252]+"b") {
		t.Error("two long VM names share a Secret")
	}
	if SecretName("web") != "vm-agent-token-web" {
		t.Errorf("SecretName(web) = %s", SecretName("web"))
	}
}
