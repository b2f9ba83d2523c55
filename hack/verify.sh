#!/usr/bin/env bash
# Fails when the generated code, the CRDs, the chart's CRDs and RBAC, or the
# CLI reference (docs/cli.md) differ from what `make generate` would write,
# or when a Go file is not gofmt-ed. It works on a copy of the tree, so it
# changes nothing and needs no git.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

unformatted=$(gofmt -l $(find . -name '*.go' -not -path './_output/*' -not -path './hack/tools/*'))
if [ -n "$unformatted" ]; then
  echo "[verify] these files are not gofmt-ed (run 'gofmt -w'):" >&2
  echo "$unformatted" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$repo" --exclude=./_output --exclude=./bin --exclude=./.git -cf - . | tar -C "$work" -xf -
(cd "$work" && hack/generate.sh >/dev/null)

stale=0
for dir in api config/crd/bases deploy/charts/antreaplus/crds deploy/charts/antreaplus/files/rbac docs/cli.md; do
  if ! diff -r -q "$repo/$dir" "$work/$dir" >/dev/null; then
    echo "[verify] generated files under $dir are stale:" >&2
    diff -r -u "$repo/$dir" "$work/$dir" | head -40 >&2 || true
    stale=1
  fi
done
if [ "$stale" -ne 0 ]; then
  echo "[verify] run 'make generate' and commit the result" >&2
  exit 1
fi
echo "[verify] generated code and formatting are up to date"
