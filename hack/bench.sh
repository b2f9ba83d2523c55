#!/usr/bin/env bash
# `make bench`: every benchmark of the repository. Each prints a table with
# its baseline measured in the same run and writes JSON under _output/bench.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export ANTREAPLUS_TOOLS_DIR=${ANTREAPLUS_TOOLS_DIR:-$(hack/tools.sh dir)}
out=_output/bench
mkdir -p "$out"

echo "[bench] sandbox start-up and memory (real clusters; ${BENCH_RUNS:-3} runs)"
go run ./test/bench/sandboxbench -runs "${BENCH_RUNS:-3}" -json "$out/sandbox.json"

echo
echo "[bench] federation: failover, balance, manager cost (real clusters and managers; ${BENCH_RUNS:-3} runs)"
go run ./test/bench/federationbench -runs "${BENCH_RUNS:-3}" -json "$out/federation.json"

echo
echo "[bench] DNS: our CoreDNS build vs stock CoreDNS from a zone file and stock's multicluster option (real cluster, 10k services and 1k headless ones)"
go run ./test/bench/dnsbench -services 10000 -headless 1000 -runs "${BENCH_RUNS:-3}" -json "$out/dns.json"

echo
echo "[bench] cloud inventory: 10k VMs through the real SDK against the local EC2 emulator"
go run ./test/bench/cloudbench -vms 10000 -runs 1 -json "$out/cloud.json"

echo
echo "[bench] federated Services: export -> import, slices and DNS answer in every member (${BENCH_MEMBERS:-3,10} members)"
make -s build >/dev/null  # the sandbox runs bin/federation-manager, bin/member-controller, bin/coredns
PATH="$repo/bin:$PATH" go run ./test/bench/servicesbench -members "${BENCH_MEMBERS:-3,10}" -services 100 -json "$out/services.json"

echo
echo "[bench] scale: ${BENCH_SCALE_MEMBERS:-30} light members, 3 supervisors (hack/bench-scale.sh)"
BENCH_MEMBERS="${BENCH_SCALE_MEMBERS:-30}" hack/bench-scale.sh

echo
echo "[bench] federated names outside the federation: export -> name answered by the external DNS server (real ExternalDNS, CoreDNS from etcd) vs ExternalDNS's own service source"
PATH="$repo/bin:$PATH" go run ./test/bench/externaldnsbench -services "${BENCH_EXTERNALDNS_SERVICES:-100}" -json "$out/externaldns.json"

echo
echo "[bench] antreaplus install vs helm install of the same chart (one real cluster; ${BENCH_INSTALL_RUNS:-5} runs)"
PATH="$repo/bin:$PATH" go run ./test/bench/installbench -runs "${BENCH_INSTALL_RUNS:-5}" -json "$out/install.json"

echo
echo "[bench] federated policy: a remote change (VM IP, NAT gateway address, new entity, Service endpoint) to a VM agent's nftables in another member, vs the same change made locally (3 members; needs root: network namespaces, nftables)"
# bin/ (built above) holds federation-manager, member-controller, policy-controller and vm-agent.
PATH="$repo/bin:$PATH" go run ./test/bench/fedpolicybench -runs "${BENCH_FEDPOLICY_RUNS:-30}" -json "$out/fedpolicy.json"

echo
echo "[bench] federated-policy translation on real networks: 1k policies over 10k remote entities in 20 networks (overlapping, NAT, flat) vs one flat network, in process"
go run ./test/bench/networkbench -runs "${BENCH_NETWORK_RUNS:-7}" -networks 20 -json "$out/networks.json"

echo
echo "[bench] agentless enforcement: 1k policies on 1k VMs through the real SDKs against the emulators"
go run ./test/bench/agentlessbench -vms 1000 -policies 1000 -runs "${BENCH_RUNS:-3}" -json "$out/agentless.json"

echo
echo "[bench] cloud-native services as enforcement points: 100 policies on 100 RDS databases and load balancers, beside 100 on VMs (AWS emulator, real SDK)"
go run ./test/bench/servicebench -services 100 -runs "${BENCH_RUNS:-3}" -json "$out/cloud-services.json"

echo
echo "[bench] tenancy: 100 tenants shared by 3 replicas of the cloud controller vs 1 alone; take-over after kill -9 (real cluster, local EC2 emulator)"
go run ./test/bench/tenancybench -tenants 100 -replicas 3 -json "$out/tenancy.json"

echo
echo "[bench] antreaplus trace: computed at 100k VMs and 10k policies in 3 members (real clusters) vs 300 VMs; live trace to verdict vs computed (the demo's federation); the rule counters' CPU under 10k new connections/s vs none (network namespaces; needs root)"
make -s build-dev >/dev/null  # the live trace's sandbox runs the cloud emulator
PATH="$repo/bin:$PATH" go run ./test/bench/tracebench -entities "${BENCH_TRACE_ENTITIES:-100000}" -policies "${BENCH_TRACE_POLICIES:-10000}" -live -counters -json "$out/trace.json"

echo
echo "[bench] the web console in a real headless Chromium: first full render and live update at 3 and 10 light members with 1,000 federated Services, vs antreaplus service list of the same data; the console's memory and CPU at idle"
hack/ensure-packages.sh chromium
PATH="$repo/bin:$PATH" go run ./test/bench/consolebench -members "${BENCH_CONSOLE_MEMBERS:-3,10}" -services "${BENCH_CONSOLE_SERVICES:-1000}" -json "$out/console.json"

echo
echo "[bench] Go benchmarks"
# Only the packages with benchmarks: the others' TestMain may start clusters.
pkgs=$(grep -rl --include='*_test.go' '^func Benchmark' . | xargs -n1 dirname | sort -u)
go test -run '^$' -bench . -benchmem -benchtime "${BENCH_TIME:-1x}" $pkgs | tee "$out/go-bench.txt" | grep -E '^(Benchmark|ok|FAIL|goos|pkg)' || true
echo
echo "[bench] results in $out/"
