package overlap

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

// Encode is the data of the ConfigMap tenancyv1alpha1.OverlapsConfigMap: for each
// tenant with overlaps, its overlaps as JSON. Equal overlaps always encode
// to the same data.
func Encode(overlaps map[string][]tenancyv1alpha1.Overlap) map[string]string {
	out := map[string]string{}
	for tenant, list := range normalize(overlaps) {
		raw, err := json.Marshal(list)
		if err != nil { // a slice of structs of strings always marshals
			panic(fmt.Sprintf("encoding the overlaps of %s: %v", tenant, err))
		}
		out[tenant] = string(raw)
	}
	return out
}

// Decode reads the ConfigMap's data back. A value that is not a JSON list
// of overlaps is left out, and named in the error.
func Decode(data map[string]string) (map[string][]tenancyv1alpha1.Overlap, error) {
	out := map[string][]tenancyv1alpha1.Overlap{}
	var errs []error
	for _, tenant := range slices.Sorted(maps.Keys(data)) {
		var list []tenancyv1alpha1.Overlap
		if err := json.Unmarshal([]byte(data[tenant]), &list); err != nil {
			errs = append(errs, fmt.Errorf("the overlaps of tenant %s: %w", tenant, err))
			continue
		}
		out[tenant] = list
	}
	return normalize(out), errors.Join(errs...)
}
