#!/usr/bin/env bash
# Installs the Debian packages that tests and the VM agent need when they are
# missing: nftables and iproute2 by default, or the packages named as
# arguments. Idempotent: when every package is installed it only checks, in
# well under a second, and changes nothing.
#
#   hack/ensure-packages.sh                 # nftables iproute2
#   hack/ensure-packages.sh dnsutils        # any other packages
#
# Exit status: 0 when every package is installed afterwards, 1 otherwise.
set -euo pipefail

packages=("$@")
if [[ ${#packages[@]} -eq 0 ]]; then
  packages=(nftables iproute2)
fi

log() { printf '[ensure-packages] %s\n' "$*" >&2; }

installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  log "not a Debian system (no dpkg-query): install ${packages[*]} by hand"
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if installed "$p"; then
    log "$p: installed"
  else
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    log "missing ${missing[*]}, and not root (no sudo): cannot install"
    exit 1
  fi
  sudo=(sudo -n)
fi

export DEBIAN_FRONTEND=noninteractive
apt_install() {
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

log "installing ${missing[*]}"
# The package lists may be missing or stale: refresh them only when
# installing from the current ones fails.
if ! apt_install; then
  log "refreshing the package lists (apt-get update)"
  "${sudo[@]}" apt-get update -q >&2
  apt_install
fi

status=0
for p in "${missing[@]}"; do
  if installed "$p"; then
    log "$p: installed now"
  else
    log "$p: still missing"
    status=1
  fi
done
exit $status
