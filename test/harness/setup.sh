#!/usr/bin/env bash
# Installs and builds what the tests need on a fresh Debian machine (no container engine):
# PostgreSQL, Redis and Go, and the real node's containerd, runc, CNI plugins and the image tools
# (mmdebstrap, umoci, jq) from Debian's packages; then, built once from the Go module proxy and
# cached, the test control plane and helm (kube/build.sh), the kubelet and pause image of the real
# node (kube/build-kubelet.sh) and MinIO (build-minio.sh); then the images (npm run images, cached
# by its inputs and skipped when the tree has not changed since the last build). Idempotent and quick when everything is there: `npm run test:all`
# runs it before every test run, and .ci/run starts it in the background while npm ci runs.
#
# Usage: bash test/harness/setup.sh [--packages-only | --no-images | --images-only]
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
  mkdir -p "$CACHE_ROOT"
  # One apt run at a time: .ci/run starts the image build while the Go builds' set-up may still be
  # installing; the second caller waits here and then finds everything installed.
  exec 8>"$CACHE_ROOT/packages.lock"
  flock 8
  local missing=()
  have_postgres || missing+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v git >/dev/null 2>&1 || missing+=(git)
  command -v flock >/dev/null 2>&1 || missing+=(util-linux)
  # Go builds the control plane; Debian's golang-go is too old for a current Kubernetes, in which
  # case build.sh falls back to the Debian recipe (v1.20.2), which needs exactly that Go.
  command -v go >/dev/null 2>&1 || missing+=(golang-go)
  # The images (npm run images) and the real node of the cluster tests.
  command -v jq >/dev/null 2>&1 || missing+=(jq)
  command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
  command -v umoci >/dev/null 2>&1 || missing+=(umoci)
  command -v runc >/dev/null 2>&1 || [ -x /usr/sbin/runc ] || missing+=(runc)
  command -v containerd >/dev/null 2>&1 || missing+=(containerd)
  [ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
  # The web app's browser tests drive Debian's Chromium (playwright-core downloads no browser).
  command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-dejavu-core)
  if [ "${#missing[@]}" -eq 0 ]; then
    say "system packages: nothing to install"
    flock -u 8
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
  flock -u 8
}

timed() {
  local t0=$SECONDS
  "$@"
  say "$* took $((SECONDS - t0)) s"
}

# The Go builds, one after the other: the kubelet reuses most of the control plane's compiled
# packages from Go's build cache, and two Go builds at once only share 2 cores.
build_go_binaries() {
  mkdir -p "$CACHE_ROOT"
  # One build at a time: a second caller (the tests after .ci/run's background build, or two
  # checkouts on one machine) waits for the first and then finds the cache.
  exec 9>"$CACHE_ROOT/go-builds.lock"
  if ! flock -n 9; then
    say "another build of the test binaries is running: waiting for it"
    flock 9
  fi
  timed bash test/harness/kube/build.sh
  timed bash test/harness/kube/build-kubelet.sh
  timed bash test/harness/build-minio.sh
  flock -u 9
  cat "$CACHE_ROOT/kube/current/BUILD_INFO"
}

# The images need node_modules (the pinned node binary comes from the npm `node` package).
build_images() {
  if [ ! -x node_modules/.bin/node ]; then
    say "images: node_modules is missing (run npm ci first)"
    return 1
  fi
  local stamp_file="dist/images/.source-stamp" stamp
  stamp="$( (git rev-parse HEAD; git status --porcelain -- api operator runner crds charts/images package.json package-lock.json) | sha256sum | cut -d' ' -f1)"
  if [ -f dist/images/images.json ] && [ "$(cat "$stamp_file" 2>/dev/null)" = "$stamp" ]; then
    say "images: up to date with this tree"
    return
  fi
  timed npm run --silent images
  echo "$stamp" >"$stamp_file"
}

case "${1:-}" in
  --packages-only) install_packages ;;
  --images-only) install_packages; build_images ;;
  --no-images) install_packages; build_go_binaries ;;
  "") install_packages; build_go_binaries; build_images ;;
  *) echo "setup.sh: unknown argument $1" >&2; exit 2 ;;
esac
