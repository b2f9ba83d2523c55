package azure

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Names and tags of the managed NSGs and ASGs.
//
// Azure names NSGs and ASGs with at most 80 characters: letters, digits,
// underscores, periods and hyphens, starting with a letter or digit and
// ending with a letter, digit or underscore. A group name of the spec that
// fits is used as it is; one that does not is cut and suffixed with a
// digest. Tag names cannot hold "/", so the tags are antreaplus-*.

const (
	maxAzureName = 80
	// TagManaged marks every NSG and ASG SyncSecurityGroups creates.
	TagManaged = "antreaplus-managed"
	// TagVNet holds the VNet (lowercased id) whose sync owns the resource:
	// a sync only changes or deletes managed resources of its own VNet.
	TagVNet = "antreaplus-vnet"
	// TagGroup holds the spec's group name on an ASG.
	TagGroup = "antreaplus-group"
	// TagInterface holds the network interface id on its NSG.
	TagInterface = "antreaplus-interface"
	maxTagValue  = 256
)

func validAzureName(s string) bool {
	if s == "" || len(s) > maxAzureName || !alnum(s[0]) {
		return false
	}
	for i := range len(s) {
		if !alnum(s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-' {
			return false
		}
	}
	last := s[len(s)-1]
	return alnum(last) || last == '_'
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// checkPrefix tells whether Azure names can start with the managed prefix.
func checkPrefix(prefix string) error {
	if !validAzureName(prefix+"x") || len(prefix) > maxAzureName/2 {
		return fmt.Errorf("managed prefix %q cannot start Azure resource names (at most %d letters, digits, '_', '.', '-', starting with a letter or digit)", prefix, maxAzureName/2)
	}
	return nil
}

// asgName is the Azure name of the ASG of a spec group.
func asgName(group string) string {
	if validAzureName(group) {
		return group
	}
	return withDigest(group, group)
}

// nsgName is the Azure name of the managed NSG of a network interface:
// the prefix, the interface's name and a digest of its id (interface
// names are unique only in their resource group).
func nsgName(prefix, nicID string) string {
	return withDigest(prefix+lastSegment(nicID), strings.ToLower(nicID))
}

// withDigest sanitises base, cuts it and appends a digest of key.
func withDigest(base, key string) string {
	sum := sha256.Sum256([]byte(key))
	suffix := "-" + hex.EncodeToString(sum[:4])
	b := []byte(base)
	for i, c := range b {
		if !alnum(c) && c != '_' && c != '.' && c != '-' {
			b[i] = '_'
		}
	}
	if len(b) > maxAzureName-len(suffix) {
		b = b[:maxAzureName-len(suffix)]
	}
	return string(b) + suffix
}

// tagValue fits an id into a tag value, by digest when too long.
func tagValue(id string) string {
	id = strings.ToLower(id)
	if len(id) <= maxTagValue {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func lastSegment(id string) string {
	return id[strings.LastIndex(id, "/")+1:]
}
