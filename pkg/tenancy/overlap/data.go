package overlap

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"antreaplus.io/antreaplus/pkg/tenancy"
)

// Encode is the data of the ConfigMap tenancy.OverlapsConfigMap: for each
// tenant with overlaps, its overlaps as JSON. Equal overlaps always encode
// to the same data.
func Encode(overlaps map[string][]tenancy.Overlap) map[string]string {
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
func Decode(data map[string]string) (map[string][]tenancy.Overlap, error) {
	out := map[string][]tenancy.Overlap{}
	var errs []error
	for _, tenant := range slices.Sorted(maps.Keys(data)) {
		var list []tenancy.Overlap
		if err := json.Unmarshal([]byte(data[tenant]), &list); err != nil {
			errs = append(errs, fmt.Errorf("the overlaps of tenant %s: %w", tenant, err))
			continue
		}
		out[tenant] = list
	}
	return normalize(out), errors.Join(errs...)
}
