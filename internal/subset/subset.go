// Package subset says whether an object an API server stored holds every
// field of a manifest, as unstructured JSON values: the server adds
// defaults and metadata, never takes a field away, so a stored object that
// holds the manifest's fields needs no write.
package subset

import "reflect"

// Of reports whether have holds every field of want with the same value:
// maps by key (have may hold more keys), lists element by element (the same
// length), scalars equal.
func Of(want, have any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			hv, ok := h[k]
			if !ok || !Of(wv, hv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !Of(w[i], h[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(want, have) || numbersEqual(want, have)
	}
}

// numbersEqual compares JSON numbers decoded as int64 on one side and
// float64 on the other.
func numbersEqual(a, b any) bool {
	af, aok := number(a)
	bf, bok := number(b)
	return aok && bok && af == bf
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
