#!/usr/bin/env bash
# Builds the api, operator and runner images as OCI image layouts and tarballs, without a container
# engine (our machines and CI have none): a Debian root filesystem from mmdebstrap, the project's
# pinned Node runtime (the npm `node` package), each component's production dependencies and its
# sources, assembled with umoci. The Dockerfiles next to each component describe the same images
# for people who have Docker.
#
# One builder for the three images (rather than one next to each Dockerfile): they share the base
# layer, the Node layer and the dependency step, and a shared base layer is stored and pulled once.
#
# Usage: charts/images/build.sh [--out DIR] [--only api|operator|runner]... [--update-base-lock]
# Output: DIR (default dist/images)/<name>.oci (layout, tag = package version) and <name>.tar (the
#         layout as a tar, what `ctr images import --base-name causeway/<name>` takes), and
#         images.json with each image's reference, manifest digest and sizes.
# Cache:  ${CAUSEWAY_CACHE_DIR:-~/.cache/causeway}/images/, keyed by the inputs of each step.
# Needs:  mmdebstrap, umoci, jq (Debian packages), and `npm ci` done (for the node package).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/charts/images"
CACHE="${CAUSEWAY_CACHE_DIR:-$HOME/.cache/causeway}/images"
OUT="$ROOT/dist/images"
SUITE="bookworm"
# The base is pinned by base-packages.lock (exact versions). snapshot.debian.org would pin by date,
# but it is not reachable from our machines; any mirror serving the locked versions will do.
MIRROR="${CAUSEWAY_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
BASE_LOCK="$HERE/base-packages.lock"
# libstdc++6: node links it and the `essential` variant lacks it. No ca-certificates: Node uses its
# bundled CA store, and the package would pull in openssl and perl.
BASE_INCLUDE="libstdc++6"
APP_UID=1000
ONLY=()
UPDATE_LOCK=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --only) ONLY+=("$2"); shift 2 ;;
    --update-base-lock) UPDATE_LOCK=1; shift ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

log() { printf '[images %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
sha() { sha256sum | cut -c1-16; }
for tool in mmdebstrap umoci jq; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install mmdebstrap umoci jq)"
done

cd "$ROOT"
VERSION="$(jq -r .version package.json)"
NODE_VERSION="$(jq -r '.devDependencies.node' package.json)"
NODE_BIN="$ROOT/node_modules/node/bin/node"
[ -x "$NODE_BIN" ] || die "node_modules/node/bin/node is missing: run npm ci first"
[ "$("$NODE_BIN" --version)" = "v$NODE_VERSION" ] || die "node_modules/node is $("$NODE_BIN" --version), package.json pins $NODE_VERSION: run npm ci"
REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
git diff --quiet HEAD -- 2>/dev/null || REVISION="$REVISION-dirty"
# Every timestamp in the images (files, layers, config) is the last commit's time, so the same
# commit gives the same digests.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
CREATED="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
mkdir -p "$CACHE" "$OUT"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/causeway-images.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# One build per cache at a time (CI, the test harness and a developer may all start one).
exec 9>"$CACHE/.build.lock"
flock -n 9 || { log "another image build holds $CACHE/.build.lock: waiting"; flock 9; }

# Sets every mtime under $1 to SOURCE_DATE_EPOCH (layer tars record them).
normalize_times() { find "$1" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +; }

# --- the Debian base: cached by the lock, the variant and the user -----------------------------------
build_base() {
  local key dir hook_out tmp="$CACHE/base.tmp"
  key="$({ echo "$SUITE $BASE_INCLUDE uid=$APP_UID v2"; cat "$BASE_LOCK" 2>/dev/null || true; } | sha)"
  dir="$CACHE/base-$key"
  if [ -f "$dir/rootfs.tar" ] && [ "$UPDATE_LOCK" = 0 ]; then
    log "base $SUITE cached ($dir)" >&2
    BASE_DIR="$dir"
    return
  fi
  [ -f "$BASE_LOCK" ] || [ "$UPDATE_LOCK" = 1 ] || die "$BASE_LOCK is missing: run with --update-base-lock"
  log "building the $SUITE base with mmdebstrap from $MIRROR"
  local t0=$SECONDS
  rm -rf "$tmp"; mkdir -p "$tmp"
  hook_out="$tmp/packages.txt"
  # Docs, man pages and locales are dropped (copyright files stay). The non-root user is written
  # directly: the `essential` variant has no useradd.
  # The merged-usr hook sets up /usr-merge itself and installs usr-is-merged, where the usrmerge
  # package would pull in perl.
  mmdebstrap --quiet --variant=essential --include="$BASE_INCLUDE" \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --customize-hook="chroot \"\$1\" dpkg-query -W -f '\${Package}=\${Version}\n' | LC_ALL=C sort >'$hook_out'" \
    --customize-hook="echo 'causeway:x:$APP_UID:$APP_UID:causeway:/home/causeway:/usr/sbin/nologin' >>\"\$1/etc/passwd\"" \
    --customize-hook="echo 'causeway:x:$APP_UID:' >>\"\$1/etc/group\"" \
    --customize-hook="mkdir -p \"\$1/home/causeway\" \"\$1/app\" && chown $APP_UID:$APP_UID \"\$1/home/causeway\"" \
    --customize-hook="rm -f \"\$1/etc/machine-id\" \"\$1/var/cache/ldconfig/aux-cache\"" \
    "$SUITE" "$tmp/rootfs.tar" "$MIRROR" >&2
  if [ "$UPDATE_LOCK" = 1 ]; then
    cp "$hook_out" "$BASE_LOCK"
    log "wrote $BASE_LOCK ($(wc -l <"$BASE_LOCK") packages)"
    key="$({ echo "$SUITE $BASE_INCLUDE uid=$APP_UID v2"; cat "$BASE_LOCK"; } | sha)"
    dir="$CACHE/base-$key"
  elif ! diff -u "$BASE_LOCK" "$hook_out" >"$WORK/base-drift.diff"; then
    cat "$WORK/base-drift.diff" >&2
    rm -rf "$tmp"
    die "the mirror no longer serves the versions of $BASE_LOCK (diff above): review and run with --update-base-lock"
  fi
  rm -rf "$dir"; mv "$tmp" "$dir"
  log "base built in $((SECONDS - t0)) s: $(du -m "$dir/rootfs.tar" | cut -f1) MiB"
  BASE_DIR="$dir"
}

# --- base + Node as a cached OCI layout (tag `base`), the start of every image ------------------------
build_runtime_layout() {
  local node_sum key dir
  node_sum="$(sha256sum "$NODE_BIN" | cut -c1-16)"
  key="$(echo "$(basename "$BASE_DIR") node=$node_sum epoch=$SOURCE_DATE_EPOCH v1" | sha)"
  dir="$CACHE/runtime-$key"
  if [ -f "$dir/index.json" ]; then
    log "base + node $NODE_VERSION layout cached ($dir)"
    RUNTIME_DIR="$dir"
    return
  fi
  local t0=$SECONDS stage="$WORK/node"
  rm -rf "$dir.tmp"
  umoci init --layout "$dir.tmp"
  umoci new --image "$dir.tmp:base"
  umoci raw add-layer --image "$dir.tmp:base" --history.created "$CREATED" \
    --history.created_by "mmdebstrap --variant=essential --include=$BASE_INCLUDE $SUITE (base-packages.lock)" \
    "$BASE_DIR/rootfs.tar"
  mkdir -p "$stage"
  cp "$NODE_BIN" "$stage/node"
  normalize_times "$stage"
  umoci insert --image "$dir.tmp:base" --history.created "$CREATED" \
    --history.created_by "node $NODE_VERSION (npm package node)" "$stage/node" /usr/local/bin/node
  rm -rf "$dir"; mv "$dir.tmp" "$dir"
  log "base + node layout built in $((SECONDS - t0)) s"
  RUNTIME_DIR="$dir"
}

# --- production dependencies of one workspace ------------------------------------------------------
# The one place that knows how a component's dependencies are installed. While the repository is a
# single package, every component gets the root's production dependencies; once each component is
# an npm workspace this becomes `npm ci --omit=dev -w <workspace>` and each image gets only its own.
# Prints the directory holding node_modules (cached by the lock file and the workspace name).
install_production_deps() {
  local workspace="$1" key dir manifests=(package.json crds/package.json runner/package.json runner/validation/package.json api/package.json api/web/package.json operator/package.json)
  # Only the fields npm ci reads, of every manifest the lock names: a new script in a package.json
  # must not cost a reinstall.
  local manifest_key
  manifest_key="$(for m in "${manifests[@]}"; do echo "$m"; jq -S '{name, version, type, engines, dependencies, devDependencies, optionalDependencies, overrides, workspaces} | with_entries(select(.value != null))' "$m"; done)"
  key="$({ echo "ws=$workspace node=$NODE_VERSION v2"; echo "$manifest_key"; cat package-lock.json; } | sha)"
  dir="$CACHE/deps-$workspace-$key"
  if [ -d "$dir/node_modules" ]; then
    log "production dependencies of $workspace cached ($dir)"
    echo "$dir"
    return
  fi
  local t0=$SECONDS m
  rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
  for m in "${manifests[@]}"; do mkdir -p "$dir.tmp/$(dirname "$m")"; cp "$m" "$dir.tmp/$m"; done
  cp package-lock.json "$dir.tmp/"
  # The workspace's production dependencies only (the contract's come with it: a workspace link).
  # --ignore-scripts: no production dependency needs its install script (protobufjs' only prints a
  # notice), and none may run code at build time. Node 24 from node_modules runs npm.
  (cd "$dir.tmp" && PATH="$ROOT/node_modules/.bin:$PATH" npm ci --omit=dev --ignore-scripts --workspace "@causeway/$workspace" \
    --no-audit --no-fund --loglevel=error >&2)
  rm -f "$dir.tmp/node_modules/.package-lock.json"
  normalize_times "$dir.tmp/node_modules"
  rm -rf "$dir"; mv "$dir.tmp" "$dir"
  log "production dependencies of $workspace installed in $((SECONDS - t0)) s: $(du -sm "$dir/node_modules" | cut -f1) MiB"
  echo "$dir"
}

# --- one image ------------------------------------------------------------------------------------
# $1 name, $2 workspace, $3 description, $4 exposed ports (space separated, may be empty),
# $5 the default command (space separated words; a Cmd like the Dockerfiles', so a Job's `command`
# or runc's args replace it), then the source paths copied into /app.
build_image() {
  local name="$1" workspace="$2" description="$3" ports="$4" command="$5"
  shift 5
  local t0=$SECONDS layout="$OUT/$name.oci" image deps app="$WORK/app-$name"
  image="$layout:$VERSION"
  log "building $name"
  rm -rf "$layout" "$OUT/$name.tar"
  cp -a "$RUNTIME_DIR" "$layout"
  umoci tag --image "$layout:base" "$VERSION"
  umoci rm --image "$layout:base"

  deps="$(install_production_deps "$workspace")"
  umoci insert --image "$image" --history.created "$CREATED" \
    --history.created_by "npm ci --omit=dev ($workspace)" "$deps/node_modules" /app/node_modules

  # Only what the Dockerfile copies, without tests.
  mkdir -p "$app"
  cp package.json "$app/"
  local path
  for path in "$@"; do
    mkdir -p "$app/$(dirname "$path")"
    cp -r "$path" "$app/$path"
  done
  find "$app" -name '*.test.ts' -delete
  normalize_times "$app"
  umoci insert --image "$image" --history.created "$CREATED" \
    --history.created_by "causeway $name sources ($REVISION)" "$app" /app

  local -a args=(--config.user "$APP_UID:$APP_UID" --config.workingdir /app
    --config.env NODE_ENV=production --config.env HOME=/home/causeway
    --config.env PATH=/usr/local/bin:/usr/bin:/bin
    --created "$CREATED" --author "causeway" --architecture amd64 --os linux)
  local word
  for word in $command; do args+=(--config.cmd "$word"); done
  for word in $ports; do args+=(--config.exposedports "$word/tcp"); done
  local -A labels=(
    [org.opencontainers.image.title]="causeway-$name"
    [org.opencontainers.image.description]="$description"
    [org.opencontainers.image.version]="$VERSION"
    [org.opencontainers.image.revision]="$REVISION"
    [org.opencontainers.image.created]="$CREATED"
    [org.opencontainers.image.source]="$(sed -n 's/^home: *//p' charts/causeway/Chart.yaml)"
    [org.opencontainers.image.licenses]="$(jq -r .license package.json)"
    [org.opencontainers.image.vendor]="causeway"
    [org.opencontainers.image.base.name]="debian:$SUITE (mmdebstrap, charts/images/base-packages.lock)"
  )
  local label
  for label in "${!labels[@]}"; do
    args+=(--config.label "$label=${labels[$label]}" --manifest.annotation "$label=${labels[$label]}")
  done
  umoci config --image "$image" --history.created "$CREATED" --history.created_by "umoci config" "${args[@]}"
  umoci gc --layout "$layout"
  # The tar of the layout, with fixed order, owners and times.
  tar -C "$layout" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner -cf "$OUT/$name.tar" .
  log "$name built in $((SECONDS - t0)) s"
}

# Reference, manifest digest and sizes of a built image, as one JSON object.
describe_image() {
  local name="$1" layout="$OUT/$1.oci" manifest
  manifest="$(jq -r '.manifests[0].digest' "$layout/index.json")"
  local blob="$layout/blobs/sha256/${manifest#sha256:}"
  local compressed layers
  compressed="$(jq '[.config.size] + [.layers[].size] | add' "$blob")"
  layers="$(jq '.layers | length' "$blob")"
  jq -n --arg name "$name" --arg ref "causeway/$name:$VERSION" --arg digest "$manifest" --arg revision "$REVISION" \
    --argjson compressed "$compressed" --argjson layers "$layers" \
    --argjson tar "$(stat -c %s "$OUT/$name.tar")" \
    '{name: $name, reference: $ref, digest: $digest, revision: $revision, compressed_bytes: $compressed, layers: $layers, tar_bytes: $tar}'
}

T0=$SECONDS
want() { [ "${#ONLY[@]}" -eq 0 ] || [[ " ${ONLY[*]} " == *" $1 "* ]]; }
build_base
build_runtime_layout
if want runner; then
  build_image runner runner "causeway runner: one prediction or causal-analysis job per container" "" \
    "node runner/src/main.ts" crds/package.json crds/src runner/package.json runner/src
fi
if want api; then
  # The web app the API serves under /app/: bundled here from the dev install (its libraries are
  # not production dependencies; the image gets the built files only).
  "$NODE_BIN" api/web/build.ts --if-stale >&2
  # The API imports the runner's contract and upload validation, and the CRD types for dispatch.
  build_image api api "causeway HTTP API (also runs the migrations: node api/src/admin/cli.ts migrate)" "8080 8081" \
    "node api/src/main.ts" crds/package.json crds/src runner/package.json runner/src api/package.json api/src api/migrations api/web/dist
fi
if want operator; then
  build_image operator operator "causeway operator: one runner Job per Prediction / CausalAnalysis" "8080" \
    "node operator/src/main.ts" crds/package.json crds/src operator/package.json operator/src
fi

printf '[' >"$OUT/images.json"
sep=""
for name in runner api operator; do
  [ -d "$OUT/$name.oci" ] && want "$name" || continue
  printf '%s%s' "$sep" "$(describe_image "$name")" >>"$OUT/images.json"
  sep=","
done
printf ']\n' >>"$OUT/images.json"
jq . "$OUT/images.json" >"$WORK/images.json" && mv "$WORK/images.json" "$OUT/images.json"
printf '\n%-9s %-26s %-73s %10s %10s\n' image reference digest compressed tar
jq -r '.[] | [.name, .reference, .digest, "\(.compressed_bytes / 1048576 | floor) MiB", "\(.tar_bytes / 1048576 | floor) MiB"] | @tsv' \
  "$OUT/images.json" | while IFS=$'\t' read -r n r d c t; do printf '%-9s %-26s %-73s %10s %10s\n' "$n" "$r" "$d" "$c" "$t"; done
printf 'built in %d s; layouts and tars in %s\n' "$((SECONDS - T0))" "$OUT"
