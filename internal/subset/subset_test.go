package subset

import "testing"

func TestOf(t *testing.T) {
	want := map[string]any{"spec": map[string]any{"group": "g", "versions": []any{map[string]any{"name": "v1", "served": true}}, "n": int64(3)}}
	for _, tc := range []struct {
		name string
		have any
		ok   bool
	}{
		{"the same", map[string]any{"spec": map[string]any{"group": "g", "versions": []any{map[string]any{"name": "v1", "served": true}}, "n": int64(3)}}, true},
		{"with the server's defaults", map[string]any{"spec": map[string]any{"group": "g", "scope": "Namespaced",
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true}}, "n": float64(3)}}, true},
		{"a value changed by hand", map[string]any{"spec": map[string]any{"group": "g", "versions": []any{map[string]any{"name": "v1", "served": false}}, "n": int64(3)}}, false},
		{"a list element more", map[string]any{"spec": map[string]any{"group": "g", "versions": []any{map[string]any{"name": "v1", "served": true}, map[string]any{"name": "v2"}}, "n": int64(3)}}, false},
		{"a field missing", map[string]any{"spec": map[string]any{"group": "g", "n": int64(3)}}, false},
		{"another type", map[string]any{"spec": "g"}, false},
	} {
		if got := Of(want, tc.have); got != tc.ok {
			t.Errorf("%s: Of = %v, want %v", tc.name, got, tc.ok)
		}
	}
}
