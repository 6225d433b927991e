#!/usr/bin/env bash
# Builds (once) and caches the binaries of the test control plane: kube-apiserver,
# kube-controller-manager and etcd, plus helm. No container engine or prebuilt binary download
# is available on our machines, so everything is built from source through the Go module proxy
# (or, as a fallback, from Debian's kubernetes source package; see
# ../shared/docs/kubernetes-test-env.md).
#
# Usage: test/harness/kube/build.sh [--route modern|debian|auto] [--force] [--no-helm]
# Cache: ${CAUSEWAY_CACHE_DIR:-~/.cache/causeway}/kube/<version>/ and .../helm/<version>/;
#        .../kube/current is a symlink to the control plane that the harness uses.
# Rebuild: delete the version folder (or pass --force).
set -euo pipefail

KUBE_VERSION="${CAUSEWAY_KUBE_VERSION:-v1.36.4}"
HELM_VERSION="${CAUSEWAY_HELM_VERSION:-v3.21.4}"
DEBIAN_KUBE_VERSION="v1.20.2-debian"
CACHE_ROOT="${CAUSEWAY_CACHE_DIR:-$HOME/.cache/causeway}"
ROUTE="${CAUSEWAY_KUBE_ROUTE:-auto}"
FORCE=0
HELM=1
while [ $# -gt 0 ]; do
  case "$1" in
    --route) ROUTE="$2"; shift 2 ;;
    --force) FORCE=1; shift ;;
    --no-helm) HELM=0; shift ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

log() { printf '[kube-build %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
have_all() { [ -x "$1/kube-apiserver" ] && [ -x "$1/kube-controller-manager" ] && [ -x "$1/etcd" ]; }
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"

# shellcheck source=go-module.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-module.sh"

# The modern route: k8s.io/kubernetes as a Go module (go-module.sh).
build_modern() {
  local out="$1" work ld
  work="$(mktemp -d "${TMPDIR:-/tmp}/causeway-kube-build.XXXXXX")"
  trap 'rm -rf "$work"' RETURN
  cd "$work"
  kube_module_init "$KUBE_VERSION" || { log "could not download k8s.io/kubernetes@${KUBE_VERSION}"; return 1; }
  # A go file importing the commands lets `go mod tidy` resolve the whole graph in one step.
  cat >tools.go <<'GO'
//go:build tools

package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
GO
  log "resolving modules for kubernetes ${KUBE_VERSION}"
  go mod tidy -e >/dev/null
  ld="$(kube_ldflags "$KUBE_VERSION")"
  mkdir -p "$out.tmp"
  log "building kube-apiserver, kube-controller-manager (this is the slow part)"
  go build -trimpath -ldflags "$ld" -o "$out.tmp/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
  log "building etcd (the version kubernetes ${KUBE_VERSION} requires)"
  go build -trimpath -ldflags "-s -w" -o "$out.tmp/etcd" go.etcd.io/etcd/server/v3
  go list -m go.etcd.io/etcd/server/v3 >"$out.tmp/ETCD_VERSION"
}

# The fallback: kubernetes v1.20.2 from Debian's source package with Debian's Go 1.19, and
# Debian's etcd 3.4 (the recipe of kubernetes-test-env.md).
build_debian() {
  local out="$1" work src
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    local f; f="$(ls /etc/apt/sources.list.d/*.sources | head -1)"
    sed 's/^Types: deb$/Types: deb-src/' "$f" | $SUDO tee /etc/apt/sources.list.d/causeway-deb-src.sources >/dev/null
  fi
  $SUDO apt-get update -qq
  # etcd-server's postinst would start a system etcd on :2379; the harness starts its own.
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-1.19-go etcd-server golang-github-modern-go-reflect2-dev rsync jq dpkg-dev make >/dev/null
  $SUDO rm -f /usr/sbin/policy-rc.d
  work="$(mktemp -d "${TMPDIR:-/tmp}/causeway-kube-debian.XXXXXX")"
  trap 'rm -rf "$work"' RETURN
  cd "$work"
  apt-get source -qq kubernetes >/dev/null
  src="$(find . -maxdepth 1 -type d -name 'kubernetes-*' | head -1)"
  cd "$src"
  # The vendored reflect2 1.0.1 crashes under Go >= 1.18; Debian's 1.0.2 does not.
  rm -rf vendor/github.com/modern-go/reflect2
  cp -r /usr/share/gocode/src/github.com/modern-go/reflect2 vendor/github.com/modern-go/
  rm -f vendor/github.com/modern-go/reflect2/go.mod
  mkdir -p .go/src/k8s.io && ln -s ../../.. .go/src/k8s.io/kubernetes
  PATH=/usr/lib/go-1.19/bin:$PATH GOPATH=$PWD/.go CGO_ENABLED=0 GOFLAGS= GOTOOLCHAIN=local \
    make WHAT="cmd/kube-apiserver cmd/kube-controller-manager" >/dev/null
  mkdir -p "$out.tmp"
  cp _output/local/bin/linux/amd64/kube-apiserver _output/local/bin/linux/amd64/kube-controller-manager "$out.tmp/"
  ln -sf /usr/bin/etcd "$out.tmp/etcd"
  etcd --version | head -1 >"$out.tmp/ETCD_VERSION"
}

build_helm() {
  [ "$HELM" = 1 ] || return 0
  local dir="$CACHE_ROOT/helm/$HELM_VERSION"
  if [ -x "$dir/helm" ] && [ "$FORCE" = 0 ]; then log "helm $HELM_VERSION cached at $dir"; return 0; fi
  command -v go >/dev/null || { log "go is missing: cannot build helm"; return 1; }
  local t0=$SECONDS
  mkdir -p "$dir"
  log "building helm $HELM_VERSION"
  GOBIN="$dir" CGO_ENABLED=0 GOFLAGS= go install -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  log "helm built in $((SECONDS - t0)) s"
}

finish() { # $1 = version folder name, $2 = route, $3 = seconds
  local dir="$CACHE_ROOT/kube/$1"
  rm -rf "$dir"; mv "$dir.tmp" "$dir"
  printf 'version=%s\nroute=%s\nbuild_seconds=%s\nbuilt_at=%s\n' "$1" "$2" "$3" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$dir/BUILD_INFO"
  ln -sfn "$1" "$CACHE_ROOT/kube/current"
  log "control plane $1 ($2) ready in $dir after $3 s"
}

mkdir -p "$CACHE_ROOT/kube"
# One build at a time per cache (CI, the harness and a developer may all start one): the others
# wait here and then find the binaries cached.
exec 9>"$CACHE_ROOT/kube/.build.lock"
if ! flock -n 9; then
  log "another build holds $CACHE_ROOT/kube/.build.lock: waiting for it"
  flock 9
fi
for v in "$KUBE_VERSION" "$DEBIAN_KUBE_VERSION"; do
  if [ "$FORCE" = 0 ] && have_all "$CACHE_ROOT/kube/$v" && { [ "$ROUTE" = auto ] || { [ "$ROUTE" = modern ] && [ "$v" = "$KUBE_VERSION" ]; } || { [ "$ROUTE" = debian ] && [ "$v" = "$DEBIAN_KUBE_VERSION" ]; }; }; then
    log "control plane $v cached at $CACHE_ROOT/kube/$v"
    ln -sfn "$v" "$CACHE_ROOT/kube/current"
    build_helm
    exit 0
  fi
done

t0=$SECONDS
if [ "$ROUTE" != debian ] && command -v go >/dev/null; then
  if ( build_modern "$CACHE_ROOT/kube/$KUBE_VERSION" ); then
    finish "$KUBE_VERSION" "go-modules" "$((SECONDS - t0))"
    build_helm
    exit 0
  fi
  rm -rf "$CACHE_ROOT/kube/$KUBE_VERSION.tmp"
  [ "$ROUTE" = modern ] && { log "modern build failed"; exit 1; }
  log "modern build failed; falling back to the Debian recipe (kubernetes v1.20.2)"
fi
t0=$SECONDS
build_debian "$CACHE_ROOT/kube/$DEBIAN_KUBE_VERSION"
finish "$DEBIAN_KUBE_VERSION" "debian-source-package" "$((SECONDS - t0))"
build_helm
