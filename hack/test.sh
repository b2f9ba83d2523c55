#!/usr/bin/env bash
# `make test`: every check and test of the repository, against real API
# servers started from the cached tools. Fails when any step fails.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export ANTREAPLUS_TOOLS_DIR=${ANTREAPLUS_TOOLS_DIR:-$(hack/tools.sh dir)}
# Integration tests fail, rather than skip, when clusters cannot be started.
export ANTREAPLUS_REQUIRE_CLUSTERS=1

started=$SECONDS
step() { printf '\n[test] %s (at %ds)\n' "$*" $((SECONDS - started)); }

step "verify: generated code and formatting"
hack/verify.sh

# golangci-lint runs go vet's analyzers (govet) with the rest: no separate
# `go vet`, and `go test -vet=off` below, so that none runs twice. It runs
# beside the build and the tests (its findings are printed, and fail the run,
# at the end): the test packages that start clusters mostly wait.
out=${TMPDIR:-/tmp}/antreaplus-test
mkdir -p "$out"
step "golangci-lint, in the background (go vet's analyzers included)"
"$ANTREAPLUS_TOOLS_DIR/golangci-lint" run --allow-parallel-runners ./... > "$out/lint.log" 2>&1 &
lint=$!
# Nothing started here outlives the script, whatever ends it.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT

step "build the programs the tests run (once, for every test package)"
export ANTREAPLUS_BIN_DIR="$repo/_output/test-bin"
rm -rf "$ANTREAPLUS_BIN_DIR"
go build -ldflags "-X main.version=test-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" -o "$ANTREAPLUS_BIN_DIR/" ./cmd/...

step "go test (unit, integration and end-to-end; clusters are real kube-apiservers)"
# Packages that start clusters run three at a time (they mostly wait); each
# has its own sandbox. The longest start first, so that they overlap the
# others instead of running last. The other packages run beside them in a
# second go test: queued behind the clusters' packages, they would run last.
heavy=(./test/e2e/services ./test/integration/cloud ./test/e2e/federation ./test/integration/federation
  ./test/e2e ./test/integration ./test/e2e/vmagent ./test/integration/agentless ./test/e2e/dns)
rest=$(go list ./... | grep -v -x -F "$(printf 'antreaplus.io/antreaplus/%s\n' "${heavy[@]#./}")")
gotest() {
  local log=$1
  shift
  go test -count=1 -vet=off -timeout 25m "$@" > "$log" 2>&1
}
rm -f "$out/clusters.log" "$out/unit.log"
gotest "$out/clusters.log" -p 3 "${heavy[@]}" &
clusters=$!
gotest "$out/unit.log" -p 2 $rest &
unit=$!
# Both logs are printed as they grow (without the lines of passing tests).
# ($! is tail's pid: killing it ends grep too.)
tail -q -n +1 -F "$out/clusters.log" "$out/unit.log" 2>/dev/null > >(grep --line-buffered -v '^\(=== \|--- PASS\|PASS$\)') &
printer=$!
status=0
wait $clusters || status=$?
wait $unit || status=$?
sleep 1
kill $printer 2>/dev/null || true
wait $printer 2>/dev/null || true
sleep 0.2
cat "$out/clusters.log" "$out/unit.log" > "${TMPDIR:-/tmp}/antreaplus-test.log"
hack/reap-test-sandboxes.sh || true

step "golangci-lint's findings"
lint_status=0
wait $lint || lint_status=$?
cat "$out/lint.log"

summary=$(grep -cE '^ok ' "${TMPDIR:-/tmp}/antreaplus-test.log" || true)
failed=$(grep -cE '^(FAIL|--- FAIL)' "${TMPDIR:-/tmp}/antreaplus-test.log" || true)
if [ $status -ne 0 ] || [ $lint_status -ne 0 ]; then
  step "failed after $((SECONDS - started))s: $summary packages passed, go test exit $status, golangci-lint exit $lint_status"
  echo "$summary passed, $failed failed"
  exit 1
fi
step "done in $((SECONDS - started))s: $summary packages passed"
echo "$summary passed, $failed failed"
