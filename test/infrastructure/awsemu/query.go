package awsemu

import (
	"encoding/base64"
	"slices"
	"strings"
)

// fieldFunc returns the values a resource has for a filter name, and
// whether the filter name is known for the resource type.
type fieldFunc func(name string) ([]string, bool)

// matches reports whether a resource passes every filter: for each filter,
// one of its values matches one of the resource's values.
func matches(fs []filter, fields fieldFunc) (bool, *apiError) {
	for _, f := range fs {
		have, known := fields(f.name)
		if !known {
			return false, errInvalidParameterValue("The filter '%s' is invalid", f.name)
		}
		if !anyMatch(f.values, have) {
			return false, nil
		}
	}
	return true, nil
}

func anyMatch(patterns, values []string) bool {
	for _, p := range patterns {
		for _, v := range values {
			if globMatch(p, v) {
				return true
			}
		}
	}
	return false
}

// tagField serves the tag filters every taggable resource supports.
func tagField(tags map[string]string, name string) ([]string, bool) {
	if k, ok := strings.CutPrefix(name, "tag:"); ok {
		if v, ok := tags[k]; ok {
			return []string{v}, true
		}
		return nil, true
	}
	switch name {
	case "tag-key":
		return sortedKeys(tags), true
	case "tag-value":
		out := make([]string, 0, len(tags))
		for _, v := range tags {
			out = append(out, v)
		}
		return out, true
	}
	return nil, false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func tagsXML(tags map[string]string) []tagXML {
	out := make([]tagXML, 0, len(tags))
	for _, k := range sortedKeys(tags) {
		out = append(out, tagXML{Key: k, Value: tags[k]})
	}
	return out
}

// page returns at most max ids (all if max is 0) that come after the cursor
// in token, and the token of the next page ("" when this is the last).
// ids must be sorted. The token names the last id returned, so resources
// added or removed between pages never shift the others.
func page(ids []string, token string, max int) ([]string, string, *apiError) {
	start := 0
	if token != "" {
		last, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || len(last) == 0 {
			return nil, "", errClient("InvalidPaginationToken", "The pagination token '%s' is invalid.", token)
		}
		start, _ = slices.BinarySearch(ids, string(last))
		if start < len(ids) && ids[start] == string(last) {
			start++
		}
	}
	ids = ids[start:]
	if max == 0 || len(ids) <= max {
		return ids, "", nil
	}
	ids = ids[:max]
	return ids, base64.RawURLEncoding.EncodeToString([]byte(ids[len(ids)-1])), nil
}

// lookupIDs checks that every id requested exists (found reports it) and
// returns them sorted; with none requested it returns all, sorted.
func lookupIDs(requested []string, all []string, found func(string) bool, notFound func(string) *apiError) ([]string, *apiError) {
	if len(requested) == 0 {
		slices.Sort(all)
		return all, nil
	}
	for _, id := range requested {
		if !found(id) {
			return nil, notFound(id)
		}
	}
	out := slices.Clone(requested)
	slices.Sort(out)
	return slices.Compact(out), nil
}
