package inventory

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The fast checks must say exactly what the validation package says.
func checkAgainstValidation(t *testing.T, s string) {
	t.Helper()
	if got, want := isLabelName(s), s != "" && !strings.Contains(s, "/") && len(validation.IsQualifiedName(s)) == 0; got != want {
		t.Errorf("isLabelName(%q) = %v; validation says %v", s, got, want)
	}
	if got, want := LabelValue(s) == s, len(validation.IsValidLabelValue(s)) == 0; got != want {
		t.Errorf("LabelValue(%q) kept = %v; validation says valid = %v", s, got, want)
	}
	if got, want := isDNSLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
		t.Errorf("isDNSLabel(%q) = %v; validation says %v", s, got, want)
	}
}

func TestFastChecksMatchValidation(t *testing.T) {
	for _, s := range []string{"", "a", "A", "-", "a-", "-a", "a.b", "a_b", "a/b", "Cost Center", "R&D / 42", "ü",
		"web", "i-0abc", "I-0ABC", "a..b", strings.Repeat("a", 63), strings.Repeat("a", 64), "0", "a-b-c", "_a", "a_"} {
		checkAgainstValidation(t, s)
	}
}

func FuzzFastChecksMatchValidation(f *testing.F) {
	for _, s := range []string{"", "web", "Cost Center", "a-", "x.y_z", strings.Repeat("b", 64)} {
		f.Add(s)
	}
	f.Fuzz(checkAgainstValidation)
}
