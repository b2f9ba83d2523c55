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

# The VM tests (e2e/vmagent, e2e/fedpolicy, the sandbox's agented VMs) play VMs
# in network namespaces whose agents program nftables: the programs are
# installed here, by the make target, not by a test (they run in parallel).
step "packages the tests need (nftables, iproute2, chromium, skopeo, umoci)"
hack/ensure-packages.sh nftables iproute2 || echo "[test] nftables or iproute2 could not be installed: the VM tests will fail and say why"
# test/e2e/console drives Debian's headless Chromium.
hack/ensure-packages.sh chromium || echo "[test] chromium could not be installed: test/e2e/console will fail and say why"
# test/images reads the images hack/images builds with skopeo and umoci.
hack/ensure-packages.sh skopeo umoci || echo "[test] skopeo or umoci could not be installed: test/images will fail and say why"

step "verify: generated code and formatting"
hack/verify.sh

# golangci-lint runs go vet's analyzers (govet) with the rest: no separate
# `go vet`, and `go test -vet=off` below, so that none runs twice. (Run beside
# the build and the tests, it compiled the same packages again at the same
# time: a third more CPU in all.)
step "golangci-lint (go vet's analyzers included)"
"$ANTREAPLUS_TOOLS_DIR/golangci-lint" run --allow-parallel-runners ./...

# Programs and test binaries are linked without DWARF (-s -w): a third less
# link time; stack traces are unaffected.
ldflags="-s -w"
# The programs the cluster tests run (controllers, the VM agent, the CLI,
# the cloud emulator) are built with the race detector: the end-to-end tests
# are where their goroutines meet. A race is reported into $race (GORACE
# log_path, one file per process, test binaries included) instead of into a
# log that is deleted with its sandbox, and fails the run below.
# coredns is the exception: CoreDNS's own kubernetes plugin sets klog's
# global logger (klog.SetLogger, unsynchronised) in its setup, so every
# reload or restart of a server block races with the live informers of the
# instance it replaces, inside CoreDNS and klog, not in our plugin (seen in
# the first run). Our plugin's tests run under -race in process instead.
step "build the programs the tests run, with the race detector (once, for every test package)"
export ANTREAPLUS_BIN_DIR="$repo/_output/test-bin"
race="$repo/_output/race"
rm -rf "$ANTREAPLUS_BIN_DIR" "$race"
mkdir -p "$race"
# atexit_sleep_ms=0: a race-built program that exits with other threads
# running (any that called an API server) sleeps a second first unless
# told not to, to catch races at exit; the tests run such CLI commands and
# stop such controllers hundreds of times (measured: 'sandbox status' 1.25
# s, 0.14 s without the sleep; 0.04 s plain).
export GORACE="log_path=$race/report atexit_sleep_ms=0"
version="test-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
# federation-manager is the other: its failover tests hold it to its
# heartbeat and lease deadlines (seconds), and race-built managers, at
# several times the CPU, missed them on two loaded cores (leaders moved
# although alive, in two runs of three). Its concurrency is checked under
# -race in process instead (pkg/federation/manager against real API servers).
go build -race -ldflags "$ldflags -X main.version=$version" -o "$ANTREAPLUS_BIN_DIR/" \
  $(go list ./cmd/... ./test/infrastructure/cmd/... | grep -vE '/cmd/(coredns|federation-manager)$')
# -trimpath and CGO_ENABLED=0 are the images' build flags (hack/images):
# test/images's linux/amd64 build then finds these two programs' packages,
# most of every image's, compiled already; on a cold build cache each
# variant of the flags compiles every dependency again.
CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags -X main.version=$version" -o "$ANTREAPLUS_BIN_DIR/" ./cmd/coredns ./cmd/federation-manager

step "go test (unit, integration and end-to-end; clusters are real kube-apiservers)"
# Packages that start clusters run three at a time (they mostly wait); each
# has its own sandbox. The longest start first, so that they overlap the
# others instead of running last. The other packages run beside them in a
# second go test: queued behind the clusters' packages, they would run last.
heavy=(./test/e2e/services ./test/e2e/vmsandbox ./test/e2e ./test/e2e/fedpolicy ./test/integration/cloud ./test/e2e/federation
  ./test/integration/federation ./test/integration ./test/e2e/vmagent ./test/integration/agentless ./test/integration/tenancy ./test/e2e/dns
  ./test/integration/policycli ./test/e2e/scale ./test/e2e/console ./test/e2e/chart ./test/e2e/rbac ./test/e2e/tenancy ./test/e2e/externaldns
  ./pkg/install ./pkg/serviceimport ./pkg/entityimport ./pkg/federatedpolicy ./pkg/membercontroller ./pkg/federation/manager
  ./pkg/federation/tenantoverlaps ./pkg/federation/dnsendpoints ./pkg/tenancy ./pkg/networks/networkstatus ./pkg/policydistribution/livetrace ./test/images ./hack/demo)
# The list above only orders the cluster packages (longest first); which
# packages start clusters is decided by hack/packages.sh (their tests import
# test/framework, or build the release artifacts: test/images), and a package missing from the list, or listed without
# starting clusters, fails the run here rather than running in the wrong lane.
listed=$(printf 'antreaplus.io/antreaplus/%s\n' "${heavy[@]#./}" | sort)
starting=$(hack/packages.sh clusters | sort)
if [ "$listed" != "$starting" ]; then
  echo "[test] hack/test.sh's list of cluster packages is out of date:" >&2
  comm -13 <(echo "$listed") <(echo "$starting") | sed 's/^/  starts clusters but is not listed: /' >&2
  comm -23 <(echo "$listed") <(echo "$starting") | sed 's/^/  listed but starts no cluster (no test/framework import): /' >&2
  exit 1
fi
# Test binaries that run our code in process run under the race detector:
# the unit lane (make test-unit alone runs it) and the cluster packages under
# pkg/ (the federation manager, member controller and leader controllers
# against real API servers), in a go test of their own beside the others.
# The e2e and integration test binaries mostly drive the race-built programs
# and wait, so they are built without it (measured: docs/development.md).
rest=$(hack/packages.sh unit)
# pkg/install is the exception: its cluster tests wait on API servers
# applying a chart (one concurrent part, a kind's objects applied at once,
# whose goroutines only call the client); under -race beside the other lanes
# they took 280-430 s of the run's two cores (88-118 s alone), so they run
# in the driving lane; that concurrency runs under -race in the race-built
# CLI of test/e2e's TestInstallCommands and the as-installed sandbox.
inprocess=() driving=()
for p in "${heavy[@]}"; do
  case $p in ./pkg/install) driving+=("$p") ;; ./pkg/*) inprocess+=("$p") ;; *) driving+=("$p") ;; esac
done
# The clusters' components, the programs and the tests inherit GOGC: with 24
# GB and CPU the scarce resource, their garbage collectors run a third as
# often (kube-apiserver spent 13% of its CPU marking in the burst of exports).
# test/e2e/services's burst test creates and deletes 1000 exports in three
# members unless told otherwise: 296-340 s of the two cores alone, the most
# CPU of any test. Under make test it checks the same path (every import,
# slice and derived Service, then nothing left) with 300, beside everything
# else; the figures of a burst at scale are servicesbench's (make bench).
export ANTREAPLUS_BURST=${ANTREAPLUS_BURST:-300}
# A package's limit: test/e2e/vmsandbox, the longest, took 1396-1500 s in
# full runs (its federation, clouds, agents and the demo's steps, beside
# everything else), at the edge of 25 minutes.
gotest() {
  local log=$1 niceness=$2
  shift 2
  GOGC=${GOGC:-300} nice -n "$niceness" go test -count=1 -vet=off -ldflags="$ldflags" -timeout 40m "$@" > "$log" 2>&1
}
out=${TMPDIR:-/tmp}/antreaplus-test
mkdir -p "$out"
rm -f "$out/clusters.log" "$out/inprocess.log" "$out/unit.log"
# Nothing started here outlives the script, whatever ends it.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
gotest "$out/clusters.log" 0 -p 3 "${driving[@]}" &
clusters=$!
gotest "$out/inprocess.log" 0 -p 1 -race "${inprocess[@]}" &
inproc=$!
# The logs are printed as they grow (without the lines of passing tests).
# ($! is tail's pid: killing it ends grep too.)
tail -q -n +1 -F "$out/clusters.log" "$out/inprocess.log" "$out/unit.log" 2>/dev/null > >(grep --line-buffered -v '^\(=== \|--- PASS\|PASS$\)') &
printer=$!
# The unit packages start once the first three cluster packages run (their
# sandboxes exist), so that both go commands do not compile the same
# packages at the same time; one at a time, beside them.
sandboxes="${TMPDIR:-/tmp}/antreaplus-test-sandboxes"
for _ in $(seq 120); do
  [ "$(find "$sandboxes" -mindepth 1 -maxdepth 1 -name 'pid*' -newer "$out/clusters.log" 2>/dev/null | wc -l)" -ge 3 ] && break
  sleep 1
done
# (At a lower priority: they fill the gaps the clusters' packages leave.)
gotest "$out/unit.log" 5 -p 1 -race $rest &
unit=$!
status=0
wait $clusters || status=$?
wait $inproc || status=$?
wait $unit || status=$?
sleep 1
kill $printer 2>/dev/null || true
wait $printer 2>/dev/null || true
sleep 0.2
cat "$out/clusters.log" "$out/inprocess.log" "$out/unit.log" > "${TMPDIR:-/tmp}/antreaplus-test.log"
hack/reap-test-sandboxes.sh || true

# A race in a program (or a test binary) fails the run even when the test
# that ran it passed: the report says where.
reports=$(find "$race" -type f -name 'report*' 2>/dev/null | sort)
if [ -n "$reports" ]; then
  step "the race detector reported data races ($(echo "$reports" | wc -l) processes)"
  for r in $reports; do
    echo "--- $r"
    head -c 20000 "$r"
  done
  status=1
fi

# Packages are counted by go test's own lines ("ok  <pkg>", "FAIL\t<pkg>"),
# and the failing tests are named by their top-level "--- FAIL" lines.
log="${TMPDIR:-/tmp}/antreaplus-test.log"
summary=$(grep -cE '^ok ' "$log" || true)
failed=$(grep -cE '^FAIL[[:space:]]' "$log" || true)
tests=$( (grep -E '^--- FAIL: ' "$log" || true) | awk '{print $3}' | sort -u | tr '\n' ' ')
if [ $status -ne 0 ]; then
  step "failed after $((SECONDS - started))s: $summary packages passed"
  echo "$summary packages passed, $failed failed${tests:+; failing tests: $tests}"
  exit 1
fi
step "done in $((SECONDS - started))s: $summary packages passed"
echo "$summary packages passed, $failed failed"
