#!/usr/bin/env bash
# Builds the tools the project needs from source, through the Go module proxy,
# into a cache keyed by each tool module's pinned versions. Only the first run
# builds; later runs print the cached path and return at once.
#
#   hack/tools.sh            build every tool (what `make tools` runs)
#   hack/tools.sh bin NAME   print the cached path of one tool, building it if needed
#   hack/tools.sh modules M...  build only these tool modules (make demo: kubernetes kwok external-dns)
#   hack/tools.sh dir        print the directory holding every tool (for PATH)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache_root=${ANTREAPLUS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/antreaplus/tools}
gover=$(go env GOVERSION)

# tool module -> the packages it builds, as "binary=package".
declare -A packages=(
  [kubernetes]="kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler kubectl=k8s.io/kubernetes/cmd/kubectl etcd=go.etcd.io/etcd/server/v3"
  [kwok]="kwok=sigs.k8s.io/kwok/cmd/kwok kwokctl=sigs.k8s.io/kwok/cmd/kwokctl"
  [controller-gen]="controller-gen=sigs.k8s.io/controller-tools/cmd/controller-gen"
  [golangci-lint]="golangci-lint=github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
  [helm]="helm=helm.sh/helm/v3/cmd/helm"
  [external-dns]="external-dns=sigs.k8s.io/external-dns"
)
order=(kubernetes kwok controller-gen golangci-lint helm external-dns)

# Link-time version stamps: kwokctl reads `kube-apiserver --version` to choose
# the flags it passes, so the Kubernetes binaries must report their release.
# Helm reports its release, and lints and renders charts for our Kubernetes
# minor (its default is 1.20), as Helm's own Makefile stamps them.
# ExternalDNS reports its release, as its Makefile stamps it.
kube_version=$(awk '$1 == "k8s.io/kubernetes" {print $2}' "$repo/hack/tools/kubernetes/go.mod")
kube_minor=$(echo "$kube_version" | cut -d. -f2)
helm_version=$(awk '$1 == "require" && $2 == "helm.sh/helm/v3" {print $3}' "$repo/hack/tools/helm/go.mod")
external_dns_version=$(awk '$1 == "require" && $2 == "sigs.k8s.io/external-dns" {print $3}' "$repo/hack/tools/external-dns/go.mod")
declare -A ldflags=(
  [kubernetes]="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=${kube_version:1:1} -X k8s.io/component-base/version.gitMinor=$kube_minor -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$kube_version"
  [helm]="-X helm.sh/helm/v3/internal/version.version=$helm_version -X helm.sh/helm/v3/internal/version.gitTreeState=clean -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$kube_minor -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$kube_minor"
  [external-dns]="-X sigs.k8s.io/external-dns/pkg/apis/externaldns.Version=$external_dns_version"
)

log() { printf '[tools] %s\n' "$*" >&2; }

# key prints the cache key of a tool module: its pinned versions and the Go version.
key() {
  (cd "$repo/hack/tools/$1" && cat go.mod go.sum && echo "$gover ${ldflags[$1]:-}") | sha256sum | cut -c1-16
}

# build makes sure every binary of tool module $1 is in the cache.
build() {
  local mod=$1 dir="$cache_root/$1-$(key "$1")" missing=() pair
  for pair in ${packages[$mod]}; do
    [ -x "$dir/${pair%%=*}" ] || missing+=("$pair")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  mkdir -p "$dir"
  # One builder per module at a time; a second caller waits, then finds the cache filled.
  local lock
  exec {lock}>"$cache_root/.$mod.lock"
  if ! flock -n "$lock"; then
    log "waiting for another build of the $mod tools to finish ..."
    flock "$lock"
  fi
  missing=()
  for pair in ${packages[$mod]}; do
    [ -x "$dir/${pair%%=*}" ] || missing+=("$pair")
  done
  for pair in "${missing[@]}"; do
    local bin=${pair%%=*} pkg=${pair#*=} start=$SECONDS
    log "building $bin ($mod module, $gover) into $dir ..."
    (cd "$repo/hack/tools/$mod" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w ${ldflags[$mod]:-}" -o "$dir/$bin.tmp" "$pkg")
    mv "$dir/$bin.tmp" "$dir/$bin"
    log "built $bin in $((SECONDS - start))s"
  done
  exec {lock}>&-


}

link_all() {
  mkdir -p "$cache_root/bin"
  local mod pair
  for mod in "${order[@]}"; do
    for pair in ${packages[$mod]}; do
      ln -sfn "$cache_root/$mod-$(key "$mod")/${pair%%=*}" "$cache_root/bin/${pair%%=*}"
    done
  done
}

module_of() {
  local mod pair
  for mod in "${order[@]}"; do
    for pair in ${packages[$mod]}; do
      [ "${pair%%=*}" = "$1" ] && { echo "$mod"; return 0; }
    done
  done
  echo "unknown tool $1 (known: ${!packages[*]})" >&2
  return 1
}

case "${1:-all}" in
  all)
    mkdir -p "$cache_root/bin"
    for mod in "${order[@]}"; do build "$mod"; done
    link_all
    log "all tools ready in $cache_root/bin"
    ;;
  modules)
    shift
    mkdir -p "$cache_root/bin"
    for mod in "$@"; do
      [ -n "${packages[$mod]:-}" ] || { echo "unknown tool module $mod (known: ${order[*]})" >&2; exit 2; }
      build "$mod"
    done
    link_all
    log "$* ready in $cache_root/bin"
    ;;
  bin)
    mod=$(module_of "$2")
    mkdir -p "$cache_root/bin"
    build "$mod"
    link_all
    echo "$cache_root/$mod-$(key "$mod")/$2"
    ;;
  dir)
    echo "$cache_root/bin"
    ;;
  *)
    echo "usage: $0 [all | modules MODULE... | bin NAME | dir]" >&2
    exit 2
    ;;
esac
