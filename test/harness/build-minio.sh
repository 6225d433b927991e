#!/usr/bin/env bash
# Builds (once) and caches MinIO, an S3 server that verifies request and presigned-URL signatures
# (s3rver does not), from the Go module proxy. MinIO publishes no tagged module versions any more:
# the pin is a pseudo-version of its main branch. Its module has no replace directives, so a plain
# `go install` builds it.
#
# Usage: test/harness/build-minio.sh [--force]
# Cache: ${CAUSEWAY_CACHE_DIR:-~/.cache/causeway}/minio/<version>/minio
set -euo pipefail

MINIO_VERSION="${CAUSEWAY_MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
CACHE_ROOT="${CAUSEWAY_CACHE_DIR:-$HOME/.cache/causeway}"
DIR="$CACHE_ROOT/minio/$MINIO_VERSION"
log() { printf '[minio-build %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

mkdir -p "$CACHE_ROOT/minio"
exec 9>"$CACHE_ROOT/minio/.build.lock"
flock -n 9 || { log "another build holds $CACHE_ROOT/minio/.build.lock: waiting for it"; flock 9; }
if [ "${1:-}" != "--force" ] && [ -x "$DIR/minio" ]; then
  log "minio $MINIO_VERSION cached at $DIR"
  exit 0
fi
command -v go >/dev/null || { log "go is missing"; exit 1; }
t0=$SECONDS
rm -rf "$DIR.tmp"; mkdir -p "$DIR.tmp"
log "building minio $MINIO_VERSION"
GOBIN="$DIR.tmp" CGO_ENABLED=0 GOFLAGS= GOTOOLCHAIN="${GOTOOLCHAIN:-auto}" \
  go install -trimpath -ldflags "-s -w" "github.com/minio/minio@$MINIO_VERSION"
rm -rf "$DIR"; mv "$DIR.tmp" "$DIR"
log "minio ready in $DIR after $((SECONDS - t0)) s"
