#!/usr/bin/env bash
# Compares jcni's runtime with Go libcni on one plugin exec, back to back on this machine:
#   Go:   libcni-driver bench-exec --command VERSION --level invoke   (libcni's GetVersionInfo: find, spawn, pipes, decode)
#   jcni: JMH RuntimeExecBenchmark.versionInfo                          (CniRuntime.versionInfo: the same steps)
#         and .versionInfoWithLaunchHelper                              (the same with Options.withLaunchHelpers(1))
# both on the Go trivial plugin, whose own work is negligible. Prints Go's median (taken before and after the JMH
# run, averaged), jcni's p0.50, and their ratio. The machine should be otherwise idle: both sides measure wall time.
#
# Usage: benchmarks/runtime-exec-ratio.sh [GO_BIN_DIR]      (default benchmarks/target/go-bin)
#   N=500 (Go calls per run), JMH_OPTS="-f 1 -wi 3 -w 2 -i 5 -r 2" (JMH run shape) may be overridden.
# Needs: ./mvnw -B -q -pl benchmarks -am package -DskipTests (benchmarks/target/benchmarks.jar), go + Debian's libcni
# source (scripts/setup) for the Go peers.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/benchmarks/target/go-bin}
n=${N:-500}
jmh_opts=${JMH_OPTS:--f 1 -wi 3 -w 2 -i 5 -r 2}
jar=$root/benchmarks/target/benchmarks.jar

# find-jdk.sh (what ./mvnw uses to pick a JDK >= 25) is not written for set -e.
set +e
# shellcheck source=/dev/null
. "$root/.mvn/find-jdk.sh"
set -e
java=$JAVA_HOME/bin/java
[ -f "$jar" ] || { echo "missing $jar: run ./mvnw -B -q -pl benchmarks -am package -DskipTests" >&2; exit 1; }
"$root/it/scripts/build-go-tools.sh" "$bin"
if [ -f "$bin/SKIPPED" ]; then
  echo "Go peers not built: $(cat "$bin/SKIPPED")" >&2
  exit 1
fi

go_median_ns() {
  "$bin/libcni-driver" bench-exec --plugin trivial-plugin --n "$n" --warmup 50 --level invoke --cni-path "$bin" |
    sed -n 's/.*"medianNs":\([0-9]*\).*/\1/p'
}

csv=$(mktemp /tmp/jcni-runtime-exec.XXXXXX.csv)
trap 'rm -f "$csv"' EXIT
go_before=$(go_median_ns)
# shellcheck disable=SC2086
"$java" -Djmh.ignoreLock=true -jar "$jar" 'RuntimeExecBenchmark\.versionInfo(WithLaunchHelper)?$' -p pluginDir="$bin" \
  $jmh_opts \
  -rf csv -rff "$csv" >&2
go_after=$(go_median_ns)
jcni_us=$(awk -F, '$1 ~ /RuntimeExecBenchmark\.versionInfo:p0\.50"$/ {print $5}' "$csv")
warm_us=$(awk -F, '$1 ~ /RuntimeExecBenchmark\.versionInfoWithLaunchHelper:p0\.50"$/ {print $5}' "$csv")
[ -n "$jcni_us" ] && [ -n "$warm_us" ] || { echo "no p0.50 for versionInfo in the JMH output" >&2; exit 1; }

awk -v a="$go_before" -v b="$go_after" -v j="$jcni_us" -v w="$warm_us" 'BEGIN {
  go = (a + b) / 2 / 1000
  printf "Go libcni (invoke) median:                  %5.0f us (before %.0f us, after %.0f us)\n", go, a / 1000, b / 1000
  printf "jcni versionInfo p0.50 (default spawn):     %5.0f us  ratio %.2f\n", j, j / go
  printf "jcni versionInfo p0.50 (1 launch helper):   %5.0f us  ratio %.2f\n", w, w / go
}'
