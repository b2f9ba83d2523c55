#!/usr/bin/env bash
# `make test`: every check and test of the repository, against real API
# servers started from the cached tools. Fails on the first failing step.
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
# `go vet`, and `go test -vet=off` below, so that none runs twice.
step "golangci-lint (go vet's analyzers included)"
"$ANTREAPLUS_TOOLS_DIR/golangci-lint" run --allow-parallel-runners ./...

step "build the programs the tests run (once, for every test package)"
export ANTREAPLUS_BIN_DIR="$repo/_output/test-bin"
rm -rf "$ANTREAPLUS_BIN_DIR"
go build -ldflags "-X main.version=test-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" -o "$ANTREAPLUS_BIN_DIR/" ./cmd/...

step "go test (unit, integration and end-to-end; clusters are real kube-apiservers)"
# Packages that start clusters run three at a time (they mostly wait); each has its own sandbox.
# The longest start first, so that they overlap the others instead of running last.
heavy=(./test/e2e/services ./test/integration/cloud ./test/e2e/federation ./test/integration/federation
  ./test/e2e ./test/integration ./test/e2e/vmagent ./test/integration/agentless ./test/e2e/dns)
rest=$(go list ./... | grep -v -x -F "$(printf 'antreaplus.io/antreaplus/%s\n' "${heavy[@]#./}")")
go test -count=1 -vet=off -p 3 -timeout 25m "${heavy[@]}" $rest 2>&1 | tee "${TMPDIR:-/tmp}/antreaplus-test.log" | grep -v '^\(=== \|--- PASS\|PASS$\)' || {
  status=$?
  hack/reap-test-sandboxes.sh || true
  exit $status
}
hack/reap-test-sandboxes.sh
summary=$(grep -cE '^ok ' "${TMPDIR:-/tmp}/antreaplus-test.log" || true)
failed=$(grep -cE '^(FAIL|--- FAIL)' "${TMPDIR:-/tmp}/antreaplus-test.log" || true)
step "done in $((SECONDS - started))s: $summary packages passed"
echo "$summary passed, $failed failed"
