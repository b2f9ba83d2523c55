#!/usr/bin/env bash
# hack/packages.sh clusters|unit: the Go packages of one test lane, one a line.
#   clusters  packages whose tests start real clusters: they import
#             test/framework (the only way to start them), so the rule
#             cannot drift from the code;
#   unit      every other package: no cluster, run under the race detector.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
framework=antreaplus.io/antreaplus/test/framework
lane=${1:-}
case "$lane" in
clusters | unit) ;;
*) echo "usage: hack/packages.sh clusters|unit" >&2; exit 2 ;;
esac
go list -f '{{.ImportPath}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}' ./... |
  while read -r pkg imports; do
    uses=no
    for i in $imports; do [ "$i" = "$framework" ] && uses=yes && break; done
    if { [ "$lane" = clusters ] && [ $uses = yes ]; } || { [ "$lane" = unit ] && [ $uses = no ]; }; then
      echo "$pkg"
    fi
  done
