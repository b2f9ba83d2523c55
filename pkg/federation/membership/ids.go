package membership

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// maxIDLength is the longest cluster or federation ID the API accepts.
const maxIDLength = 128

// SanitizeClusterID turns a kubeconfig context name into a DNS label usable
// as a cluster ID: lower case, every run of other characters than letters
// and digits becomes one '-', no '-' at either end. Names longer than 63
// characters are cut and get a short hash of the whole name, so that two
// long names stay distinct.
func SanitizeClusterID(name string) (string, error) {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	id := strings.TrimRight(b.String(), "-")
	if id == "" {
		return "", fmt.Errorf("cannot make a cluster ID of the context name %q: give one with --cluster-id", name)
	}
	if len(id) > validation.DNS1123LabelMaxLength {
		sum := sha256.Sum256([]byte(name))
		id = strings.TrimRight(id[:validation.DNS1123LabelMaxLength-9], "-") + "-" + hex.EncodeToString(sum[:])[:8]
	}
	return id, nil
}

// ValidateClusterID checks an explicit cluster ID the way the API server
// will: a DNS subdomain of at most 128 characters.
func ValidateClusterID(id string) error {
	return validateID("cluster ID", id)
}

// ValidateFederationID checks a federation ID the way the API server will.
func ValidateFederationID(id string) error {
	return validateID("federation ID", id)
}

func validateID(what, id string) error {
	if id == "" {
		return fmt.Errorf("the %s must not be empty", what)
	}
	if len(id) > maxIDLength {
		return fmt.Errorf("the %s %q is longer than %d characters", what, id, maxIDLength)
	}
	if errs := validation.IsDNS1123Subdomain(id); len(errs) > 0 {
		return fmt.Errorf("the %s %q is not a DNS subdomain (lower-case letters, digits, '-' and '.', starting and ending with a letter or digit): %s", what, id, strings.Join(errs, "; "))
	}
	return nil
}
