#!/bin/sh
# Exec start-up of jcni's plugins against Debian's Go plugins, in the same run.
#
#   plugins-core/bench/exec-bench.sh [rounds]        # after ./mvnw -B package
#
# 1. VERSION (hyperfine -N, medians): Go static vs jcni static and host-local through their launchers (with their AOT
#    caches), and host-local with -XX:AOTMode=off (no cache).
# 2. host-local ADD on an empty /16 in a tmpfs data dir: Go vs jcni, round-robin (interleaved.py), each timed ADD
#    preceded by an untimed DEL of the same container so that every ADD allocates.
# 3. host-local ADD at 90 % of a /16 (58982 reservations in Go's format, written beforehand by fill.py): Go reads
#    every reservation file per ADD, jcni's index does not. jcni's first call after the fill rebuilds its index
#    once (before timing).
# Numbers are noisy on a shared 2-core machine: compare ratios within one run, not across runs.
set -eu
rounds=${1:-30}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dist=$root/dist/cni/bin
go=${GO_PLUGINS:-/usr/lib/cni}
for p in "$dist/static" "$dist/host-local" "$go/static" "$go/host-local"; do
    [ -x "$p" ] || { echo "missing $p (./mvnw -B package; Go plugins: containernetworking-plugins)" >&2; exit 1; }
done
command -v hyperfine >/dev/null || { echo "hyperfine is not installed" >&2; exit 1; }

work=$(mktemp -d /dev/shm/jcni-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
export CNI_CONTAINERID=bench CNI_NETNS=/var/run/netns/jcni-bench-none CNI_IFNAME=eth0 CNI_PATH=$dist

echo "== VERSION (ms, hyperfine)"
CNI_COMMAND=VERSION hyperfine -N -w 5 -r "$rounds" --export-json "$work/version.json" \
    "$go/static" "$dist/static" "$dist/host-local" \
    "env JCNI_JAVA_OPTS=-XX:AOTMode=off $dist/host-local" >/dev/null
python3 "$here/summary.py" "$work/version.json"

conf() { # conf <file> <dataDir> <subnet>
    printf '{"cniVersion":"1.0.0","name":"bench","type":"bridge","ipam":{"type":"host-local","dataDir":"%s","ranges":[[{"subnet":"%s"}]]}}' \
        "$2" "$3" > "$1"
}
add_bench() { # add_bench <label> <rounds> <go conf> <jcni conf>
    echo "== host-local ADD, $1"
    cat > "$work/add.json" <<JSON
[{"name": "go host-local ADD", "cmd": ["$go/host-local"], "env": {"CNI_COMMAND": "ADD"}, "stdin": "$3",
  "prepare": "CNI_COMMAND=DEL $go/host-local < $3"},
 {"name": "jcni host-local ADD", "cmd": ["$dist/host-local"], "env": {"CNI_COMMAND": "ADD"}, "stdin": "$4",
  "prepare": "CNI_COMMAND=DEL $dist/host-local < $4"}]
JSON
    python3 "$here/interleaved.py" "$work/add.json" "$2"
}

conf "$work/go-empty.json" "$work/go-empty" 10.200.0.0/16
conf "$work/jcni-empty.json" "$work/jcni-empty" 10.200.0.0/16
add_bench "empty /16" "$rounds" "$work/go-empty.json" "$work/jcni-empty.json"

python3 "$here/fill.py" "$work/go-full/bench" 10.201 58982
python3 "$here/fill.py" "$work/jcni-full/bench" 10.201 58982
conf "$work/go-full.json" "$work/go-full" 10.201.0.0/16
conf "$work/jcni-full.json" "$work/jcni-full" 10.201.0.0/16
CNI_COMMAND=DEL "$dist/host-local" < "$work/jcni-full.json" >/dev/null # index rebuild, once
add_bench "90 % of a /16" "${FULL_ROUNDS:-8}" "$work/go-full.json" "$work/jcni-full.json"
