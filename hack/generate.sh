#!/usr/bin/env bash
# Generates deepcopy functions (api/**/zz_generated.deepcopy.go) and CRD
# manifests (config/crd/bases) from the API types. `make verify` checks that
# the committed output is what this script produces.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
controller_gen=$(hack/tools.sh bin controller-gen)

echo "[generate] deepcopy for ./api/..."
"$controller_gen" object paths=./api/...
echo "[generate] CRDs into config/crd/bases"
rm -f config/crd/bases/*.yaml
# crd.antrea.io uses float64 priorities, as Antrea's published API does.
"$controller_gen" crd:allowDangerousTypes=true paths=./api/... output:crd:artifacts:config=config/crd/bases
echo "[generate] done: $(ls config/crd/bases | wc -l) CRDs"
