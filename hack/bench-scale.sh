#!/usr/bin/env bash
# `make bench-scale`: the federation at many members (docs/scale.md). Light
# members (etcd and kube-apiserver only, pkg/sandbox/light.go), 3
# supervisors; a steady idle run (BENCH_STEADY, default 10m) counting
# changes of leader, one export per 100 ms and then all at once (100
# Services) to DNS in every member beside the exporter's own watch, the cost
# at idle per member led, and a kill -9 of the supervisor leading the most.
# Writes _output/bench/scale.json (members, p99_ms, baseline_ratio,
# failover_s, leadership_changes, supervisor_rss_mib_per_member, ...).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export ANTREAPLUS_TOOLS_DIR=${ANTREAPLUS_TOOLS_DIR:-$(hack/tools.sh dir)}
out=_output/bench
mkdir -p "$out"
members=${BENCH_MEMBERS:-30}
echo "[bench-scale] $members light members, 3 supervisors: idle ${BENCH_STEADY:-10m}, exports, cost at idle, failover"
make -s build >/dev/null  # the sandbox runs bin/federation-manager, bin/member-controller, bin/coredns
PATH="$repo/bin:$PATH" go run ./test/bench/servicesbench -members "$members" -supervisors 3 -light \
  -steady "${BENCH_STEADY:-10m}" -services "${BENCH_SCALE_SERVICES:-100}" -scope-services 0 \
  -idle-cost 30s -failover -api-port-base 17443 \
  -json "$out/scale-services.json" -scale-json "$out/scale.json"
echo "[bench-scale] results in $out/scale.json"
