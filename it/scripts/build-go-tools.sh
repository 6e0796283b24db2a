#!/usr/bin/env bash
# Builds jcni's Go test peers, offline, against the Go libcni source Debian installs (golang-github-appc-cni-dev):
#   libcni-driver   a cnitool-like driver of Go libcni (it/src/test/go/libcni-driver)
#   trivial-plugin  a CNI plugin that touches nothing, with failure modes (it/src/test/go/trivial-plugin)
#
# Usage: it/scripts/build-go-tools.sh [OUT_DIR]     (default: it/target/go-bin)
#
# The it module's build runs this in generate-test-resources; benchmarks/compare.sh may run it directly.
# - Up to date (same sources, same go, same libcni source): does nothing.
# - go or Debian's libcni source missing: exits 0 after writing the reason to OUT_DIR/SKIPPED, so the build goes on
#   and the tests that need these tools skip with that reason (run scripts/setup to install them).
# - A compile error is a real failure: exit non-zero.
set -euo pipefail

self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
it_dir=$(cd "$(dirname "$self")/.." && pwd)
out=${1:-$it_dir/target/go-bin}
src=$it_dir/src/test/go
gopath=${JCNI_LIBCNI_GOPATH:-/usr/share/gocode}
libcni=$gopath/src/github.com/containernetworking/cni
tools=(libcni-driver trivial-plugin)

mkdir -p "$out"
out=$(cd "$out" && pwd)

skip() {
  for t in "${tools[@]}"; do rm -f "$out/$t"; done
  rm -f "$out/.stamp"
  printf '%s\n' "$1" >"$out/SKIPPED"
  echo "build-go-tools: skipped: $1" >&2
  exit 0
}

command -v go >/dev/null 2>&1 ||
  skip "go is not installed: run scripts/setup (installs golang-go and golang-github-appc-cni-dev)"
[ -f "$libcni/libcni/api.go" ] ||
  skip "Go libcni source not found in $libcni: run scripts/setup (installs golang-github-appc-cni-dev)"
rm -f "$out/SKIPPED"

# GOPATH mode resolves github.com/containernetworking/cni/... from Debian's tree with no module download at all.
export GO111MODULE=off GOPATH=$gopath GOFLAGS= CGO_ENABLED=0
# go needs a build cache; without HOME (some CI environments) keep it next to the output.
if [ -z "${GOCACHE:-}" ] && [ -z "${HOME:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ]; then
  export GOCACHE=$out/../go-cache
fi

stamp=$(
  {
    go version
    cd "$src" && find . -name '*.go' -type f | LC_ALL=C sort | xargs sha256sum
    cd "$libcni" && find libcni pkg -name '*.go' ! -name '*_test.go' -type f | LC_ALL=C sort | xargs sha256sum
    sha256sum "$self"
  } | sha256sum | cut -d' ' -f1
)
up_to_date=true
for t in "${tools[@]}"; do [ -x "$out/$t" ] || up_to_date=false; done
if $up_to_date && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi

cd "$src"
for t in "${tools[@]}"; do
  go build -buildvcs=false -trimpath -o "$out/.$t.tmp" "./$t"
  mv -f "$out/.$t.tmp" "$out/$t"
done
printf '%s\n' "$stamp" >"$out/.stamp"
echo "build-go-tools: built ${tools[*]} into $out ($(go version | cut -d' ' -f3), libcni from $libcni)" >&2
