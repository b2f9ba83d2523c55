package inventory

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TagLabelPrefix is the prefix of the labels that carry cloud tags.
const TagLabelPrefix = "tag.cloud.antreaplus.io/"

// maxLabel is the longest label name (after the prefix) or value.
const maxLabel = validation.LabelValueMaxLength

// hashLen is the length of the hash suffix of a normalised name or value.
const hashLen = 8

// TagLabels turns cloud tags into labels TagLabelPrefix+key=value.
//
// A tag key that is a valid label name, and a tag value that is a valid label
// value, are kept as they are. Any other is normalised: characters outside
// [A-Za-z0-9-_.] become '_', leading and trailing non-alphanumerics go, the
// rest is cut to 54 characters and "-" plus the first 8 hex digits of the
// SHA-256 of the original is appended. So a normalised name never equals a
// kept one by accident, and two tags that normalise alike still get distinct
// labels. Should two labels still collide, the tag whose key sorts first wins
// and the others are returned in dropped, sorted.
func TagLabels(tags map[string]string) (labels map[string]string, dropped []string) {
	if len(tags) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	// Kept keys first, so that they win any collision; then by key.
	slices.SortFunc(keys, func(a, b string) int {
		if ka, kb := isLabelName(a), isLabelName(b); ka != kb {
			if ka {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	labels = make(map[string]string, len(tags))
	for _, k := range keys {
		name := TagLabelPrefix + LabelName(k)
		if _, taken := labels[name]; taken {
			dropped = append(dropped, k)
			continue
		}
		labels[name] = LabelValue(tags[k])
	}
	slices.Sort(dropped)
	return labels, dropped
}

// LabelName returns s if it is a valid label name (the part after a
// prefix), else its normalised form as TagLabels describes.
func LabelName(s string) string {
	if isLabelName(s) {
		return s
	}
	return normalise(s)
}

// LabelValue returns s if it is a valid label value, else its normalised
// form as TagLabels describes.
func LabelValue(s string) string {
	if s == "" || isLabelToken(s) {
		return s
	}
	return normalise(s)
}

func isLabelName(s string) bool { return isLabelToken(s) }

// isLabelToken reports whether s is a valid label name without prefix, and
// so a valid non-empty label value: at most 63 characters of [A-Za-z0-9-_.],
// beginning and ending with an alphanumeric. It is what
// validation.IsQualifiedName and IsValidLabelValue check, without building
// their error messages, which every poll would otherwise do for every
// invalid tag of every VM.
func isLabelToken(s string) bool {
	if s == "" || len(s) > maxLabel || !isAlphanumeric(s[0]) || !isAlphanumeric(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLabelChar(s[i]) {
			return false
		}
	}
	return true
}

// normalise makes s a valid label name and value with a hash of s appended.
func normalise(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !isLabelChar(c) {
			b[i] = '_'
		}
	}
	base := strings.TrimFunc(string(b), func(r rune) bool { return !isAlphanumeric(byte(r)) })
	if len(base) > maxLabel-hashLen-1 {
		base = strings.TrimRightFunc(base[:maxLabel-hashLen-1], func(r rune) bool { return !isAlphanumeric(byte(r)) })
	}
	if base == "" {
		return "h" + shortHash(s)
	}
	return base + "-" + shortHash(s)
}

// isDNSLabel is validation.IsDNS1123Label without its error messages: at
// most 63 characters of [a-z0-9-], beginning and ending with one of [a-z0-9].
func isDNSLabel(s string) bool {
	lowerAlnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	if s == "" || len(s) > validation.DNS1123LabelMaxLength || !lowerAlnum(s[0]) || !lowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !lowerAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:hashLen]
}

func isAlphanumeric(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isLabelChar(c byte) bool {
	return isAlphanumeric(c) || c == '-' || c == '_' || c == '.'
}

// ObjectName is the Kubernetes name of the object that mirrors the cloud
// resource id (with a name, for readability). An id that is already a valid
// DNS-1123 label in lowercase (AWS ids: i-0abc..., eni-...) is used as it is.
// Any other (Azure resource ids, ARNs) becomes the lowercased, sanitised
// name (or last id segment) cut to 40 characters, "-", and 8 hex digits of
// the SHA-256 of the lowercased id: stable across polls, and the same for
// ids that differ only in case, as Azure's do.
func ObjectName(id, name string) string {
	if isDNSLabel(id) {
		return id
	}
	lower := strings.ToLower(id)
	if name == "" {
		name = lower[strings.LastIndexAny(lower, "/:")+1:]
	}
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '-'
		}
	}
	base := strings.Trim(string(b), "-")
	if len(base) > 40 {
		base = strings.TrimRight(base[:40], "-")
	}
	if base == "" {
		base = "r"
	}
	return base + "-" + shortHash(lower)
}
