#!/usr/bin/env bash
# hack/packages.sh clusters|unit: the Go packages of one test lane, one a line.
#   clusters  packages whose tests start real clusters: they import
#             test/framework (the only way to start them), so the rule
#             cannot drift from the code; and the packages of $builds, whose
#             tests build the release artifacts (minutes, not the inner loop);
#   unit      every other package: no cluster, run under the race detector.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
framework=antreaplus.io/antreaplus/test/framework
# Packages whose tests build release artifacts: test/images builds every
# program's image for two platforms (116 s, the largest package of the unit
# lane before it moved here).
builds=" antreaplus.io/antreaplus/test/images "
lane=${1:-}
case "$lane" in
clusters | unit) ;;
*) echo "usage: hack/packages.sh clusters|unit" >&2; exit 2 ;;
esac
go list -f '{{.ImportPath}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}' ./... |
  while read -r pkg imports; do
    uses=no
    for i in $imports; do [ "$i" = "$framework" ] && uses=yes && break; done
    case "$builds" in *" $pkg "*) uses=yes ;; esac
    if { [ "$lane" = clusters ] && [ $uses = yes ]; } || { [ "$lane" = unit ] && [ $uses = no ]; }; then
      echo "$pkg"
    fi
  done
