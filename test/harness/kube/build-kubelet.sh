#!/usr/bin/env bash
# Builds (once) and caches what a real test node needs beyond Debian's packages (containerd, runc,
# CNI plugins): the kubelet and kube-proxy (Services' ClusterIPs for Pods that talk to the API server
# or to each other), built from the Go module proxy exactly like the control plane (go-module.sh,
# same Kubernetes version), and a pause image for containerd's sandboxes (nothing can
# be pulled on our machines), from a tiny Go program, as an OCI layout tar.
#
# Usage: test/harness/kube/build-kubelet.sh [--force]
# Cache: ${CAUSEWAY_CACHE_DIR:-~/.cache/causeway}/kubelet/<version>/{kubelet,kube-proxy,pause.tar,BUILD_INFO}
set -euo pipefail

KUBE_VERSION="${CAUSEWAY_KUBE_VERSION:-v1.36.4}"
CACHE_ROOT="${CAUSEWAY_CACHE_DIR:-$HOME/.cache/causeway}"
FORCE=0
[ "${1:-}" = "--force" ] && FORCE=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=go-module.sh
source "$HERE/go-module.sh"
log() { printf '[kubelet-build %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

DIR="$CACHE_ROOT/kubelet/$KUBE_VERSION"
mkdir -p "$CACHE_ROOT/kubelet"
# One build at a time per cache; the others wait and then find it cached.
exec 9>"$CACHE_ROOT/kubelet/.build.lock"
flock -n 9 || { log "another build holds $CACHE_ROOT/kubelet/.build.lock: waiting for it"; flock 9; }
if [ "$FORCE" = 0 ] && [ -f "$DIR/BUILD_INFO" ] && [ -x "$DIR/kube-proxy" ]; then
  log "kubelet $KUBE_VERSION cached at $DIR"
  exit 0
fi
command -v go >/dev/null || { log "go is missing"; exit 1; }
command -v umoci >/dev/null || { log "umoci is missing (apt-get install umoci)"; exit 1; }

t0=$SECONDS
work="$(mktemp -d "${TMPDIR:-/tmp}/causeway-kubelet-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
rm -rf "$DIR.tmp"; mkdir -p "$DIR.tmp"
(
  cd "$work"
  kube_module_init "$KUBE_VERSION" || { log "could not download k8s.io/kubernetes@${KUBE_VERSION}"; exit 1; }
  cat >tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
  log "resolving modules for kubernetes ${KUBE_VERSION}"
  go mod tidy -e >/dev/null
  log "building kubelet"
  go build -trimpath -ldflags "$(kube_ldflags "$KUBE_VERSION")" -o "$DIR.tmp/kubelet" k8s.io/kubernetes/cmd/kubelet
  log "building kube-proxy"
  go build -trimpath -ldflags "$(kube_ldflags "$KUBE_VERSION")" -o "$DIR.tmp/kube-proxy" k8s.io/kubernetes/cmd/kube-proxy
)

# The pause container only has to hold the sandbox's namespaces until it is told to stop.
log "building the pause image"
mkdir -p "$work/pause/src" "$work/pause/rootfs"
cat >"$work/pause/src/main.go" <<'GO'
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}
GO
(cd "$work/pause/src" && go mod init causeway.local/pause >/dev/null 2>&1 && GOFLAGS= CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/pause/rootfs/pause" .)
layout="$work/pause/layout"
umoci init --layout "$layout"
umoci new --image "$layout:3.10"
umoci insert --image "$layout:3.10" --no-history "$work/pause/rootfs/pause" /pause
umoci config --image "$layout:3.10" --no-history --config.entrypoint /pause --config.user 65535:65535 --os linux --architecture amd64
umoci gc --layout "$layout"
tar -C "$layout" --sort=name --owner=0 --group=0 --numeric-owner -cf "$DIR.tmp/pause.tar" .

printf 'version=%s\nbuild_seconds=%s\nbuilt_at=%s\npause_image=registry.k8s.io/pause:3.10\n' \
  "$KUBE_VERSION" "$((SECONDS - t0))" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$DIR.tmp/BUILD_INFO"
rm -rf "$DIR"; mv "$DIR.tmp" "$DIR"
log "kubelet, kube-proxy $KUBE_VERSION and the pause image ready in $DIR after $((SECONDS - t0)) s"
