#!/usr/bin/env bash
# A `go test -exec` wrapper that records, for each test binary, its wall time
# and the CPU time of everything it started (its clusters included): the test
# binary runs in a cgroup of its own.
#
#   GOFLAGS=-exec=$PWD/hack/cpuacct-exec.sh CPU_LOG=/tmp/cpu.txt make test
#   sort -k4 -n -r /tmp/cpu.txt
#
# Needs root and the cpuacct controller (cgroup v1) or cgroup v2.
set -uo pipefail
log=${CPU_LOG:-${TMPDIR:-/tmp}/antreaplus-test-cpu.txt}
name=$(basename "$1")
if [ -d /sys/fs/cgroup/cpuacct ]; then
  cg=/sys/fs/cgroup/cpuacct/antreaplus-test-$$
  usage() { echo $(($(cat "$cg/cpuacct.usage") / 1000000)); }
else
  cg=/sys/fs/cgroup/antreaplus-test-$$
  usage() { echo $(($(awk '/^usage_usec/ {print $2}' "$cg/cpu.stat") / 1000)); }
fi
mkdir -p "$cg" && echo $$ > "$cg/cgroup.procs"
start=$(date +%s.%N)
"$@"
rc=$?
end=$(date +%s.%N)
sleep 1 # the clusters' processes are stopped by now
awk -v n="$name" -v s="$start" -v e="$end" -v u="$(usage)" 'BEGIN { printf "%s start=%s wall_s=%.1f cpu_s=%.1f\n", n, s, e - s, u / 1000 }' >> "$log"
echo $$ > "$(dirname "$cg")/cgroup.procs" 2>/dev/null
rmdir "$cg" 2>/dev/null
exit $rc
