#!/usr/bin/env bash
# Installs and builds what the tests need on a fresh Debian machine (no container engine):
# PostgreSQL, Redis and Go from Debian's packages, then the cached test control plane and helm
# (test/harness/kube/build.sh). Idempotent and quick when everything is there: `npm run test:all`
# runs it before every test run, and .ci/run starts it in the background while npm ci runs.
#
# Usage: bash test/harness/setup.sh [--packages-only]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export DEBIAN_FRONTEND=noninteractive

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
CACHE_ROOT="${CAUSEWAY_CACHE_DIR:-$HOME/.cache/causeway}"
say() { printf '[setup %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

have_postgres() {
  command -v initdb >/dev/null 2>&1 && return 0
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

install_packages() {
  local missing=()
  have_postgres || missing+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v git >/dev/null 2>&1 || missing+=(git)
  command -v flock >/dev/null 2>&1 || missing+=(util-linux)
  # Go builds the control plane; Debian's golang-go is too old for a current Kubernetes, in which
  # case build.sh falls back to the Debian recipe (v1.20.2), which needs exactly that Go.
  command -v go >/dev/null 2>&1 || missing+=(golang-go)
  if [ "${#missing[@]}" -eq 0 ]; then
    say "system packages: nothing to install"
    return
  fi
  say "installing: ${missing[*]}"
  # Debian's postinst scripts would start system-wide postgres/redis services: the tests start
  # their own on free ports, so service starts are disabled during the install.
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  $SUDO rm -f /usr/sbin/policy-rc.d
}

build_kube() {
  mkdir -p "$CACHE_ROOT"
  # One build at a time: a second caller (the tests after .ci/run's background build, or two
  # checkouts on one machine) waits for the first and then finds the cache.
  exec 9>"$CACHE_ROOT/kube-build.lock"
  if ! flock -n 9; then
    say "another build of the control plane is running: waiting for it"
    flock 9
  fi
  bash test/harness/kube/build.sh
  flock -u 9
  cat "$CACHE_ROOT/kube/current/BUILD_INFO"
}

install_packages
[ "${1:-}" = "--packages-only" ] && exit 0
build_kube
