#!/bin/sh
# Builds dist/: the jlink image shared by every jcni plugin, its AOT caches trained on real plugin calls, one JVM
# launcher per plugin type in dist/cni/jvm, and in dist/cni/bin the plugin client (src/image/client.c, compiled here
# with gcc, one binary per type) that hands each call to the resident plugin service (`dist/bin/jcni serve`) and
# falls back to the JVM launcher; the systemd units of the service in dist/systemd. Run by plugins-core's package
# phase (see its pom.xml):
#
#   build-dist.sh <jdk home> <module path> <dist dir> <version> <client source> <launch helper source>
#
# The launchers, the CLI launcher and the systemd units are files in src/image/templates, filled in here (fill, below).
#
# The native code is built in one step (native, below): the clients and the runtime's native launch helper
# (runtime/src/main/c/launch-helper.c: CniRuntime.Options.withLaunchHelpers(n, helper)), compiled into
# dist/libexec/jcni-launch-helper.
#
# Build id: a hash of the image's classes, written to image/lib/jcni-build-id and compiled into every client. A
# client talks only to a service of the same id: a service left running from an older dist never answers for a newer
# one (the client runs its JVM launcher instead).
#
# The plugin types and their AOT groups come from the image itself (Launcher --aot-groups): one cache per group,
# lib/jcni-<group>.aot, because the JVM loads every class of a cache at each start and a call should not pay for
# classes only other plugins load (PluginRegistry.aotGroup has the measurements). VERSION and the about text (no
# CNI_COMMAND) use the small cache of group "version" instead, chosen by the launcher from CNI_COMMAND.
#
# The image is rebuilt from scratch every time and the caches are regenerated with it: a cache from another image is
# rejected by the JVM with only a warning on stderr, and start-up silently doubles. The last step therefore runs
# every launcher with -XX:AOTMode=on (which refuses to start on a rejected cache) and fails the build on any stderr.
set -eu

jdk=$1 modules=$2 dist=$3 version=$4 client_source=$5 helper_source=$6

image=$dist/image
templates=$(dirname "$0")/templates
main=io.jcni.plugins/io.jcni.plugins.internal.launcher.Launcher
# The jcni CLI lives in io.jcni.runtime, which does not read io.jcni.netlink: adding that module to the graph keeps
# the image's --enable-native-access=io.jcni.netlink from warning "Unknown module" at every CLI start.
cli="--add-modules io.jcni.netlink -m io.jcni.runtime/io.jcni.runtime.internal.cli.JcniCli"
# Start-up flags, measured on this machine (benchmarks/compare.sh): C1 only, and only for methods ten times hotter than
# C1's default thresholds (CompileThresholdScaling=10). An exec'd plugin is over in tens of milliseconds: with the
# default thresholds C1 compiled ~180 methods per host-local ADD (mostly the JDK's classfile code that spins FFM's
# downcall stub), 20-40 ms of CPU on a second core that a busy node does not have; scaled, it compiles ~40. Measured
# against the default (30 interleaved rounds, chrt -f 20): host-local ADD 44.6 -> 45.7 ms wall, 70 -> 57 ms CPU;
# bridge ADD 67 -> 58 ms, 98 -> 73 ms CPU; bridge DEL 83 -> 72 ms, 94 -> 67 ms CPU. The interpreter alone (-Xint) is
# as fast for these calls but makes a long loop such as host-local's index rebuild of a full /16 six times slower
# (570 ms -> 3.5 s; scaled C1: 700 ms). Then the serial collector, no hsperfdata file in /tmp, a small initial heap. JVM warnings go to stderr: stdout carries
# the CNI result. jdk.includeInExceptions is set below to the image's own default, as a system property: then
# InetAddress's initialization does not load and parse conf/security/java.security (JDK 25), which saves ~40 class
# initializations and a file read in every plugin that handles an IP address.
#
# Two diagnostic flags of the image's own JVM (the image pins it, and the verification at the end of this script starts
# every launcher with them): ArchiveRelocationMode=0 maps the AOT cache at the base address it was written for instead
# of a random one, which spares relocating every pointer of a 9-16 MB cache at each start (VERSION with the netlink
# cache 44.3 -> 40.6 ms, 40 interleaved rounds); the JVM still relocates when that address is taken. The cost is
# address randomization of the cached class metadata (heap, stacks, code and libraries stay randomized); the README's
# security notes say so, and JCNI_JAVA_OPTS=-XX:ArchiveRelocationMode=1 takes it back. -AOTReplayTraining: the JVM
# does not replay the training's compilation profile at start, a thread that competes with the plugin's for two cores
# and whose compilations a call of tens of milliseconds does not live to use (bridge ADD 88.6 -> 87.5 ms wall, 100.6 ->
# 93.2 ms CPU, 24 rounds). -AOTAdapterCaching: JDK 25 keys the cached i2c/c2i adapters by a hash of their signature
# that can collide (JDK-8364929, fixed in 26); a cache holding two such adapters makes every start warn on stderr and
# lose one (seen with the CLI's cache: 'Saved blob's name LLLLLLLLLLLL is different from the expected name
# LLLLLLILILLL'). Without adapter caching jcni --version and bridge VERSION start as fast (50 and 42 ms, 30 runs each).
flags='-XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=10 -XX:+UseSerialGC -XX:-UsePerfData -Xms8m -Xss512k -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0 -XX:-AOTReplayTraining -XX:-AOTAdapterCaching -XX:+DisplayVMOutputToStderr -Xlog:disable -Xlog:all=warning:stderr'

say() { printf 'build-dist: %s\n' "$*" >&2; }

# fill <template> <output> NAME=value...: the template with every @NAME@ replaced by its value and without the
# template's own comment lines (those starting with "#%"); a placeholder left unfilled fails the build.
fill() {
    fill_script='/^#%/d'
    fill_template=$1 fill_output=$2
    shift 2
    for fill_pair in "$@"; do
        fill_value=$(printf '%s' "${fill_pair#*=}" | sed 's/[\\|&]/\\&/g')
        fill_script="$fill_script
s|@${fill_pair%%=*}@|$fill_value|g"
    done
    sed -e "$fill_script" "$fill_template" > "$fill_output"
    if grep -n '@[A-Z_][A-Z_]*@' "$fill_output" >&2; then
        say "$fill_output: a placeholder of $fill_template was not filled in"; exit 1
    fi
}

# The native code: the plugin client once per type (the type, the version, the build id and the dist are compiled
# in: a client works under any file name, as Go's plugins do) and the runtime's launch helper. One set of flags: the
# hardening flags of a program every CNI exec runs; static, so that a copy runs anywhere and nothing but the kernel
# is loaded at its start.
cflags='-std=c11 -Wall -Wextra -Werror -O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIE -static-pie -Wl,-z,relro,-z,now'
native() {
    for type in $types; do
        # shellcheck disable=SC2086
        gcc $cflags -DJCNI_TYPE="\"$type\"" -DJCNI_VERSION="\"$version\"" -DJCNI_BUILD_ID="\"$build_id\"" \
            -DJCNI_DIST="\"$dist_abs\"" -o "$dist/cni/bin/$type" "$client_source" ||
            { say "compiling the plugin client for $type failed"; exit 1; }
    done
    # shellcheck disable=SC2086
    gcc $cflags -o "$dist/libexec/jcni-launch-helper" "$helper_source" ||
        { say "compiling the launch helper failed"; exit 1; }
}

command -v gcc >/dev/null 2>&1 || { say "gcc is needed to build the plugin client (scripts/setup installs it)"; exit 1; }
rm -rf "$image" "$dist/cni" "$dist/bin" "$dist/systemd" "$dist/libexec"
mkdir -p "$dist/cni/bin" "$dist/cni/jvm" "$dist/bin" "$dist/systemd" "$dist/libexec"
say "jlink $image"
"$jdk/bin/jlink" --module-path "$modules" --add-modules io.jcni.plugins \
    --strip-debug --no-header-files --no-man-pages \
    --add-options=--enable-native-access=io.jcni.netlink \
    --output "$image"
exceptions=$(sed -n 's/^jdk\.includeInExceptions=//p' "$image/conf/security/java.security" | tail -n 1)
flags="$flags -Djdk.includeInExceptions=${exceptions:-}"
build_id="$version-$(sha256sum "$image/lib/modules" | cut -c1-16)"
printf '%s\n' "$build_id" > "$image/lib/jcni-build-id"
# The service is long-running: the JIT's full tiers, the serial collector (one heap, small footprint), a heap that
# bounds the worst case (every call thread holding a request of the largest size) and stays far below it in use.
# Its AOT cache, lib/jcni-service.aot, is trained on the service's own workload (train-service.sh): classes loaded and
# linked, and method profiles, so that its first calls are not those of a cold JVM. AOTReplayTraining stays on here (the
# JIT compiles from the training's profiles early: the service lives long enough to use them); adapter caching is off
# as in the launchers (JDK-8364929).
service_flags="-XX:+UseSerialGC -XX:-UsePerfData -Xms16m -Xmx256m -XX:+UnlockDiagnosticVMOptions -XX:-AOTAdapterCaching -XX:+DisplayVMOutputToStderr -Xlog:disable -Xlog:all=warning:stderr -Djdk.includeInExceptions=${exceptions:-}"
service_main=io.jcni.plugins/io.jcni.plugins.internal.service.ServiceMain

# ---- launchers -------------------------------------------------------------------------------------------------
image_abs=$(cd "$image" && pwd -P)
"$image/bin/java" $flags -Xshare:off -m $main --aot-groups > "$dist/aot-groups"
types=$(cut -d' ' -f1 "$dist/aot-groups")
groups="version $(cut -d' ' -f2 "$dist/aot-groups" | sort -u | grep -vx version || true)"
[ -n "$types" ] || { say "the image lists no plugin types"; exit 1; }
dist_abs=$(cd "$dist" && pwd -P)
while read -r type group; do
    launcher=$dist/cni/jvm/$type
    fill "$templates/plugin-launcher" "$launcher" TYPE="$type" GROUP="$group" VERSION="$version" \
        IMAGE="$image_abs" FLAGS="$flags" MAIN="$main"
    chmod 755 "$launcher"
done < "$dist/aot-groups"
rm "$dist/aot-groups"

fill "$templates/jcni" "$dist/bin/jcni" IMAGE="$image_abs" FLAGS="$flags" CLI="$cli" \
    SERVICE_FLAGS="$service_flags" SERVICE_MAIN="$service_main"
chmod 755 "$dist/bin/jcni"
for unit in "$templates"/systemd/*; do
    fill "$unit" "$dist/systemd/${unit##*/}" DIST="$dist_abs"
done
native

# ---- AOT caches ------------------------------------------------------------------------------------------------
# No service during the trainings: the CLI's training execs plugins, which must run as JVMs (not ask a service that
# might listen on the default socket).
export JCNI_SERVICE_SOCKET=off
work=$(mktemp -d "${TMPDIR:-/tmp}/jcni-aot.XXXXXX")
# The trainings empty their work dir when they end: their logs and the training etcd's data live beside it.
logs=$(mktemp -d "${TMPDIR:-/tmp}/jcni-aot-logs.XXXXXX")
netns=
pods_netns=
etcd_pid=
cleanup() {
    [ -z "$netns" ] || ip netns delete "$netns" 2>/dev/null || true
    [ -z "$pods_netns" ] || ip netns delete "$pods_netns" 2>/dev/null || true
    if [ -n "$etcd_pid" ]; then kill -9 "$etcd_pid" 2>/dev/null || true; wait "$etcd_pid" 2>/dev/null || true; fi
    rm -rf "$work" "$logs"
}
trap cleanup EXIT INT TERM
# cluster-ipam trains against a real etcd member (Debian's etcd-server, from scripts/setup) on loopback ports of its
# own, with its data beside the work dir; without etcd only its error path is trained (and the build says so).
if command -v etcd >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
    for attempt in 1 2 3 4 5; do
        port=$(( 20000 + ($$ * 7 + attempt * 7919 + $(date +%N | sed 's/^0*//;s/^$/0/')) % 30000 ))
        etcd --name aot --data-dir "$logs/etcd" --listen-client-urls "http://127.0.0.1:$port" \
            --advertise-client-urls "http://127.0.0.1:$port" --listen-peer-urls "http://127.0.0.1:$((port + 1))" \
            --initial-advertise-peer-urls "http://127.0.0.1:$((port + 1))" \
            --initial-cluster "aot=http://127.0.0.1:$((port + 1))" --log-level error --unsafe-no-fsync \
            > "$logs/etcd.log" 2>&1 &
        etcd_pid=$!
        for _ in $(seq 50); do
            if curl -sf -m 1 -X POST -d '{"key":"AA=="}' "http://127.0.0.1:$port/v3/kv/range" >/dev/null 2>&1; then
                JCNI_AOT_ETCD=http://127.0.0.1:$port; export JCNI_AOT_ETCD
                break 2
            fi
            kill -0 "$etcd_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$etcd_pid" 2>/dev/null || true; wait "$etcd_pid" 2>/dev/null || true
        etcd_pid=; rm -rf "$logs/etcd"
    done
fi
[ -n "${JCNI_AOT_ETCD-}" ] || say "no etcd for the AOT training: cluster-ipam is trained on its error path only"
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1; then
    candidate=jcni-aot-$$
    if ip netns add "$candidate" 2>/dev/null; then
        netns=$candidate
    fi
    # The pods of the service's training.
    if [ -n "$netns" ] && ip netns add "$candidate-pods" 2>/dev/null; then
        pods_netns=$candidate-pods
    fi
fi
# Lambda-form shapes. Every method handle the JDK builds at run time needs a LambdaForm of its shape: the ones in
# java.lang.invoke's holder classes are ready-made, any other is spun as a class of its own (~1 ms each, interpreted).
# An AOT cache replaces the holder classes with ones regenerated from the image's lib/classlist
# ("@lambda-form-invoker" lines) and from nothing else: shapes a training met are not added (JDK 25). FFM's downcall
# handle alone needs twelve shapes that list lacks, which every exec'd netlink plugin spun before its first system
# call. So a discovery pass runs each training once without any cache and with the JDK's resolution trace, and every
# holder shape it resolved goes into lib/classlist before the real trainings (build-dist's own file: no JDK file is
# touched). Measured (exec'd bridge + host-local ADD, 20 interleaved rounds): the wait for the first downcall 23.5 ->
# 17.6 ms. Six LambdaForms of FFM's method-handle combinators are not holder shapes and are still spun at each exec.
say "lambda-form shapes of the trainings"
for group in $groups; do
    # shellcheck disable=SC2086
    "$image/bin/java" $flags -Xshare:off -Djava.lang.invoke.MethodHandle.TRACE_RESOLVE=true -m $main \
        --aot-training "$group" "$work" ${netns:+/var/run/netns/$netns} > "$logs/shapes-$group.log" 2>&1 || {
        cat "$logs/shapes-$group.log" >&2; say "lambda-form discovery of group $group failed"; exit 1; }
done
shapes=$(sed -n -E \
    -e 's/^\[LF_RESOLVE\] (java\.lang\.invoke\.(Invokers|DirectMethodHandle|DelegatingMethodHandle|LambdaForm)\$Holder [A-Za-z_]+ [A-Z0-9_]+) \((success|fail)\)$/@lambda-form-invoker [LF_RESOLVE] \1/p' \
    -e 's/^\[SPECIES_RESOLVE\] (java\.lang\.invoke\.BoundMethodHandle\$Species_[A-Z]+) \((generated|salvaged)\)$/@lambda-form-invoker [SPECIES_RESOLVE] \1/p' \
    "$logs"/shapes-*.log | sort -u)
added=0
while IFS= read -r line; do
    [ -n "$line" ] || continue
    if ! grep -qxF -- "$line" "$image/lib/classlist"; then
        printf '%s\n' "$line" >> "$image/lib/classlist"
        added=$((added + 1))
    fi
done <<SHAPES
$shapes
SHAPES
[ -n "$shapes" ] || { say "the lambda-form discovery traced no shape (is the trace property still read?)"; exit 1; }
say "lambda-form shapes: $added added to lib/classlist"
rm -f "$logs"/shapes-*.log

for group in $groups; do
    say "AOT training of group $group${netns:+ (netns $netns for plugins that need one)}"
    # shellcheck disable=SC2086
    "$image/bin/java" $flags -XX:AOTCacheOutput="$image/lib/jcni-$group.aot" -m $main --aot-training "$group" \
        "$work" ${netns:+/var/run/netns/$netns} > "$logs/training.log" 2>&1 || {
        cat "$logs/training.log" >&2; say "AOT training of group $group failed"; exit 1; }
    [ -s "$image/lib/jcni-$group.aot" ] || { cat "$logs/training.log" >&2; say "no AOT cache for $group"; exit 1; }
    # A line of lib/classlist the JDK cannot generate makes it drop every regenerated holder, with only this error.
    if grep -q "LambdaForm holder classes" "$logs/training.log"; then
        cat "$logs/training.log" >&2; say "AOT training of group $group: the holder classes were not regenerated"; exit 1
    fi
done

# The CLI's training: one `jcni add` and its `jcni del` would be two JVMs; the cache comes from one, so train on
# `add` (config loading, plugin lookup, exec of a jcni plugin, result cache), with a static-IPAM network.
mkdir -p "$work/net.d"
printf '%s' '{"cniVersion":"1.1.0","name":"jcni-aot","plugins":[{"type":"static","ipam":{"type":"static","addresses":[{"address":"10.98.0.5/24"}]}}]}' \
    > "$work/net.d/10-aot.conflist"
say "AOT training of the jcni CLI"
# shellcheck disable=SC2086
"$image/bin/java" $flags -XX:AOTCacheOutput="$image/lib/jcni-cli.aot" $cli --conf-dir "$work/net.d" \
    --cni-path "$dist/cni/bin" --cache-dir "$work/cache" add jcni-aot "$work/no-netns" > "$logs/training.log" 2>&1 || {
    cat "$logs/training.log" >&2; say "AOT training of the jcni CLI failed"; exit 1; }
[ -s "$image/lib/jcni-cli.aot" ] || { cat "$logs/training.log" >&2; say "no AOT cache for the CLI"; exit 1; }

# The service's training: a service in the training namespace, which plays the node, serving pods' calls made by the
# CLI through the clients of this build (train-service.sh says what). It needs the CLI's cache: the CLI runs the pods.
# Without the namespaces (not root) it is trained on VERSION calls only, and the build says so.
say "AOT training of the plugin service${pods_netns:+ (netns $netns, pods in $pods_netns)}"
[ -n "$pods_netns" ] || say "no network namespace: the service is trained on VERSION calls only"
# shellcheck disable=SC2086
${pods_netns:+ip netns exec "$netns"} sh "$(dirname "$0")/train-service.sh" "$image/bin/java" \
    "$image/lib/jcni-service.aot" "$dist" "$work" "${pods_netns:+/var/run/netns/$pods_netns}" $service_flags \
    -- "$service_main" > "$logs/training.log" 2>&1 || {
    cat "$logs/training.log" "$work/svc-service.log" >&2; say "AOT training of the plugin service failed"; exit 1; }
[ -s "$image/lib/jcni-service.aot" ] || { cat "$logs/training.log" >&2; say "no AOT cache for the service"; exit 1; }

# ---- verification: every launcher starts with its caches, which the JVM accepts --------------------------------
# VERSION runs with the version cache; an ADD without its variables fails in the skel (code 4, on stdout) after the
# JVM started with the plugin's group cache: that start must not warn either. Through the clients with the service
# off (so each runs its JVM launcher, as without a service).
for type in $types; do
    out=$(JCNI_JAVA_OPTS=-XX:AOTMode=on CNI_COMMAND=ADD "$dist/cni/bin/$type" 2>"$work/stderr" </dev/null) && {
        say "$type ADD without variables succeeded: $out"; exit 1; }
    if [ -s "$work/stderr" ]; then
        say "$type ADD wrote to stderr (a rejected or stale AOT cache warns there):"; cat "$work/stderr" >&2; exit 1
    fi
    case $out in
        *'"code": 4'*) ;;
        *) say "$type ADD without variables printed: $out"; exit 1 ;;
    esac
done
for type in $types; do
    out=$(JCNI_JAVA_OPTS=-XX:AOTMode=on CNI_COMMAND=VERSION "$dist/cni/bin/$type" 2>"$work/stderr" </dev/null) || {
        say "$type VERSION failed with the AOT cache required:"; cat "$work/stderr" >&2; exit 1; }
    if [ -s "$work/stderr" ]; then
        say "$type VERSION wrote to stderr (a rejected or stale AOT cache warns there):"; cat "$work/stderr" >&2
        exit 1
    fi
    case $out in
        '{"cniVersion":'*'"supportedVersions":'*) ;;
        *) say "$type VERSION printed: $out"; exit 1 ;;
    esac
done
out=$(JCNI_JAVA_OPTS=-XX:AOTMode=on "$dist/bin/jcni" --version 2>"$work/stderr" </dev/null) || {
    say "jcni --version failed with the AOT cache required:"; cat "$work/stderr" >&2; exit 1; }
if [ -s "$work/stderr" ] || [ "$out" != "jcni $version" ]; then
    say "jcni --version printed '$out' and on stderr:"; cat "$work/stderr" >&2; exit 1
fi
if [ -n "$etcd_pid" ]; then kill -9 "$etcd_pid" 2>/dev/null || true; wait "$etcd_pid" 2>/dev/null || true; etcd_pid=; fi
# The service answers the clients of this build: one VERSION per type through a service on a private socket. It starts
# with its AOT cache required, and its log (its stderr) must hold nothing but its own lines: no JVM warning.
mkdir -m 700 "$work/service"
export JCNI_SERVICE_SOCKET="$work/service/plugins.sock"
JCNI_JAVA_OPTS=-XX:AOTMode=on "$dist/bin/jcni" serve > "$work/service.log" 2>&1 &
service_pid=$!
tries=0
while [ ! -S "$JCNI_SERVICE_SOCKET" ] && kill -0 $service_pid 2>/dev/null && [ $tries -lt 600 ]; do
    sleep 0.1; tries=$((tries + 1))
done
for type in $types; do
    out=$(JCNI_DEBUG=1 CNI_COMMAND=VERSION "$dist/cni/bin/$type" 2>"$work/stderr" </dev/null) || true
    case $out in
        '{"cniVersion":'*'"supportedVersions":'*) ;;
        *) kill $service_pid; say "$type VERSION through the service printed: $out"; cat "$work/stderr" "$work/service.log" >&2; exit 1 ;;
    esac
    grep -q "VERSION via service" "$work/stderr" || {
        kill $service_pid; say "$type VERSION was not answered by the service:"; cat "$work/stderr" "$work/service.log" >&2; exit 1; }
done
kill $service_pid; wait $service_pid 2>/dev/null || true
if grep -v '^jcni serve: ' "$work/service.log" | grep -q .; then
    say "the service wrote more than its log (a rejected or stale AOT cache warns there):"; cat "$work/service.log" >&2
    exit 1
fi
say "dist ready: $(echo $types | wc -w) launchers, image $(du -sh "$image" | cut -f1) with AOT caches: $(cd "$image/lib" && du -h jcni-*.aot | tr '\t\n' ' ')"
