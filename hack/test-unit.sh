#!/usr/bin/env bash
# `make test-unit`: the inner loop. Every package that starts no cluster
# (hack/packages.sh unit), under the race detector; no tools, no root.
# `make test` runs these too, beside the cluster packages.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
started=$SECONDS
pkgs=$(hack/packages.sh unit)
echo "[test-unit] $(echo "$pkgs" | wc -l) packages, race detector on"
go test -race -count=1 $pkgs "$@" | grep -v 'no test files'
echo "[test-unit] passed in $((SECONDS - started))s"
