package awsemu

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// members returns the members of the flattened list prefix (prefix.1.X,
// prefix.2.X, ...) in index order, each with the prefix and index removed
// from its keys. A scalar member (prefix.N=v) has its value under "".
func members(params url.Values, prefix string) []url.Values {
	byIndex := map[int]url.Values{}
	for k, vs := range params {
		rest, ok := strings.CutPrefix(k, prefix+".")
		if !ok {
			continue
		}
		idx, tail, _ := strings.Cut(rest, ".")
		n, err := strconv.Atoi(idx)
		if err != nil {
			continue
		}
		if byIndex[n] == nil {
			byIndex[n] = url.Values{}
		}
		byIndex[n][tail] = vs
	}
	keys := make([]int, 0, len(byIndex))
	for n := range byIndex {
		keys = append(keys, n)
	}
	slices.Sort(keys)
	out := make([]url.Values, 0, len(keys))
	for _, n := range keys {
		out = append(out, byIndex[n])
	}
	return out
}

// stringList returns the flattened list of strings prefix.1, prefix.2, ...
func stringList(params url.Values, prefix string) []string {
	var out []string
	for _, m := range members(params, prefix) {
		if v := m.Get(""); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// filter is one Filter.N of a describe call.
type filter struct {
	name   string
	values []string
}

func filters(params url.Values) []filter {
	var out []filter
	for _, m := range members(params, "Filter") {
		out = append(out, filter{name: m.Get("Name"), values: stringList(m, "Value")})
	}
	return out
}

// tagList returns the Tag.N.Key / Tag.N.Value pairs under prefix.
func tagList(params url.Values, prefix string) (map[string]string, *apiError) {
	tags := map[string]string{}
	for _, m := range members(params, prefix) {
		k := m.Get("Key")
		if k == "" {
			return nil, errInvalidParameterValue("Tag keys must not be empty")
		}
		tags[k] = m.Get("Value")
	}
	return tags, nil
}

// maxResults parses MaxResults, which must be within [lo, hi] when set.
func maxResults(params url.Values, lo, hi, def int) (int, *apiError) {
	v := params.Get("MaxResults")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, errInvalidParameterValue("Value ( %s ) for parameter maxResults is invalid. Expecting a value between %d and %d.", v, lo, hi)
	}
	return n, nil
}

// globMatch matches s against an EC2 filter value, where * matches any
// run of characters, ? any one character and \ escapes the next one.
func globMatch(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if globMatch(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			pattern, s = pattern[1:], s[1:]
			continue
		case '\\':
			if len(pattern) > 1 {
				pattern = pattern[1:]
			}
		}
		if s == "" || s[0] != pattern[0] {
			return false
		}
		pattern, s = pattern[1:], s[1:]
	}
	return s == ""
}
