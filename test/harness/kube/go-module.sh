# Sourced by build.sh and build-kubelet.sh: how a Kubernetes command is built as a Go module.
#
# A throwaway module outside the repository requires k8s.io/kubernetes and replaces every staging
# module (k8s.io/api, ...) with its published v0.X.Y release. Replace directives only count in the
# main module, which is why kubernetes cannot be `go install`ed.

# kube_module_init VERSION: makes the current (empty) directory that module. Returns 1 when the
# module proxy does not have k8s.io/kubernetes@VERSION.
kube_module_init() {
  local version="$1" minor gomod
  minor="${version#v1.}"; minor="v0.${minor}"
  export GOFLAGS="-mod=mod" GOTOOLCHAIN="${GOTOOLCHAIN:-auto}" CGO_ENABLED=0
  go mod init causeway.local/kube-build >/dev/null 2>&1
  gomod="$(go mod download -json "k8s.io/kubernetes@${version}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
  [ -f "$gomod" ] || return 1
  {
    echo "require k8s.io/kubernetes ${version}"
    grep -oE '^[[:space:]]*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" | awk -v v="$minor" '{print "replace " $1 " => " $1 " " v}'
    # Keep the godebug defaults of kubernetes' own release.
    grep -E '^godebug ' "$gomod" || true
  } >>go.mod
}

# kube_ldflags VERSION: linker flags that make the binaries report VERSION (/version, --version):
# helm's kubeVersion checks, kubectl and the kubelet's version skew checks rely on it.
kube_ldflags() {
  local version="$1" kminor commit="causeway-module-build" date ld pkg
  kminor="${version#v1.}"; kminor="${kminor%%.*}"
  date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  ld="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $pkg.gitVersion=${version} -X $pkg.gitMajor=1 -X $pkg.gitMinor=${kminor}"
    ld="$ld -X $pkg.gitCommit=${commit} -X $pkg.gitTreeState=clean -X $pkg.buildDate=${date}"
  done
  echo "$ld"
}
