#!/bin/sh
# Trains the AOT caches of a dist's jlink image on real plugin calls: one cache per AOT group (lib/jcni-<group>.aot),
# the CLI's (lib/jcni-cli.aot) and the plugin service's (lib/jcni-service.aot, train-service.sh). Run by build-dist.sh
# once the launchers and clients are in place (the CLI's and the service's trainings run them):
#
#   train-aot.sh <dist dir> <group>...
#
# What it needs it starts in a place of its own, and removes all of it when it ends, whether it succeeds, fails or is
# interrupted (the trap below): a directory under $TMPDIR (the trainings' work dir, their logs, the training etcd's
# data); as root, two network namespaces, jcni-aot-<pid> (the node of the service's training; the group trainings
# make loopback calls there) and jcni-aot-<pid>-pods (its pods), removed with every process still in them and with
# them every link the trainings made; an etcd member on two loopback ports, killed. The interface plugins' trainings
# run in anonymous namespaces of their own (InterfaceTraining), which vanish with the JVM. Nothing else on the host is
# touched: a `package` run leaves no namespace, link or process behind.
#
# Without root there are no namespaces: the plugins that need one are trained on their other paths and the service on
# VERSION calls only; without etcd, cluster-ipam on its error path only. The build says so.
set -eu

dist=$1
shift
groups=$*
image=$dist/image
# main, cli, service_main, flags, service_flags: the launchers' own, which a cache must be trained with.
. "$(dirname "$0")/jvm-options.sh"

say() { printf 'train-aot: %s\n' "$*" >&2; }

# No service during the trainings: the CLI's training execs plugins, which must run as JVMs (not ask a service that
# might listen on the default socket).
export JCNI_SERVICE_SOCKET=off
place=$(mktemp -d "${TMPDIR:-/tmp}/jcni-aot.XXXXXX")
# The trainings empty their work dir when they end: their logs and the training etcd's data live beside it.
work=$place/work
logs=$place/logs
mkdir "$work" "$logs"
netns=
pods_netns=
# shellcheck source=etcd-member.sh
. "$(dirname "$0")/etcd-member.sh"
# Removes a namespace with what still runs in it (a process keeps an unmounted namespace, and its links, alive).
drop_netns() {
    for pid in $(ip netns pids "$1" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns delete "$1" 2>/dev/null || true
}
cleanup() {
    [ -z "$pods_netns" ] || drop_netns "$pods_netns"
    [ -z "$netns" ] || drop_netns "$netns"
    stop_etcd
    rm -rf "$place"
}
# On a signal, exit (which runs cleanup once) rather than go on with the next step.
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# cluster-ipam trains against a real etcd member (Debian's etcd-server, from scripts/setup) on loopback ports of its
# own, with its data beside the work dir; without etcd only its error path is trained (and the build says so).
start_etcd aot "$place/etcd" "$logs/etcd.log"
if [ -n "$etcd_url" ]; then
    JCNI_AOT_ETCD=$etcd_url; export JCNI_AOT_ETCD
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
# holder shape it resolved goes into lib/classlist before the real trainings (the dist's own file: no JDK file is
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
# Only the group trainings use etcd (AotTraining, JCNI_AOT_ETCD).
stop_etcd

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
