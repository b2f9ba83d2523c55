package awsemu

import (
	"slices"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"web", "web", true},
		{"web", "web1", false},
		{"web-*", "web-1", true},
		{"web-*", "web-", true},
		{"*-prod", "db-prod", true},
		{"w?b", "wab", true},
		{"w?b", "wb", false},
		{`a\*b`, "a*b", true},
		{`a\*b`, "axb", false},
		{"*", "", true},
		{"", "x", false},
	} {
		if got := globMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v; want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestPageCursor(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e"}
	got, next, err := page(ids, "", 2)
	if err != nil || !slices.Equal(got, []string{"a", "b"}) || next == "" {
		t.Fatalf("page 1 = %v, %q, %v", got, next, err)
	}
	// "b" goes and "bb" comes between pages: the cursor still resumes after b.
	got, next, err = page([]string{"a", "bb", "c", "d", "e"}, next, 2)
	if err != nil || !slices.Equal(got, []string{"bb", "c"}) {
		t.Fatalf("page 2 = %v, %q, %v", got, next, err)
	}
	got, next, err = page(ids, next, 2)
	if err != nil || !slices.Equal(got, []string{"d", "e"}) || next != "" {
		t.Fatalf("last page = %v, %q, %v", got, next, err)
	}
	if _, _, err := page(ids, "%%%", 2); err == nil || err.code != "InvalidPaginationToken" {
		t.Errorf("bad token: %v", err)
	}
	if got, next, _ := page(ids, "", 0); len(got) != 5 || next != "" {
		t.Errorf("unpaged = %v, %q", got, next)
	}
}

func TestMembers(t *testing.T) {
	params := map[string][]string{
		"Filter.2.Name": {"vpc-id"}, "Filter.2.Value.1": {"vpc-1"},
		"Filter.10.Name": {"tag:env"}, "Filter.10.Value.2": {"b"}, "Filter.10.Value.1": {"a"},
		"Filter.x.Name": {"ignored"},
	}
	fs := filters(params)
	if len(fs) != 2 || fs[0].name != "vpc-id" || fs[1].name != "tag:env" || !slices.Equal(fs[1].values, []string{"a", "b"}) {
		t.Fatalf("filters = %+v; want in index order, values in index order", fs)
	}
}
