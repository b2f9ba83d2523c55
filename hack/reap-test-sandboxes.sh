#!/usr/bin/env bash
# Stops the clusters of test processes that ended without cleaning up (for
# instance killed by a timeout), so no test leaves a process behind.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root="${TMPDIR:-/tmp}/antreaplus-test-sandboxes"
[ -d "$root" ] || exit 0
for dir in "$root"/pid*-*; do
  [ -d "$dir" ] || continue
  pid=${dir##*/pid}; pid=${pid%%-*}
  kill -0 "$pid" 2>/dev/null && continue
  echo "[test] removing the sandbox left by test process $pid: $dir"
  (cd "$repo" && go run ./cmd/antreaplus sandbox down --dir "$dir") || true
done
