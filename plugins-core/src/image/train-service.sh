#!/bin/sh
# The AOT training run of the plugin service (`jcni serve`), run by train-aot.sh inside the training's network
# namespace (ip netns exec), which plays the node: the service there serves real calls that jcni's runtime CLI makes
# through the plugin clients, the workload of a node starting and removing pods, and writes its AOT cache (classes
# loaded and linked, and method profiles: JDK 25's -XX:AOTCacheOutput) when it exits.
#
#   train-service.sh <java> <aot output> <dist> <work dir> <container netns path> <service flags>... -- <main>
#
# With an empty container netns path (a build without root) only the VERSION calls run.
#
# The workload: the network of a pod as a Kubernetes node sets it up (bridge with ipMasq and hairpin mode, host-local
# IPAM -> portmap with a hostPort -> firewall -> tuning) and containerd's loopback, ADD then CHECK then DEL, for pods
# started several at once as a rollout does (so that the service's concurrent paths run as well), in two rounds; then
# VERSION of every plugin type. With etcd (a member of its own in this namespace), the same on a network of bridge +
# cluster-ipam, and cluster-ipam called alone as a main plugin delegates to it: a node of cluster_sim's, so that a fresh
# service's cluster-ipam calls start from the cache's classes and profiles too. Every pod is an interface of its own
# (eth<i>, net<i>) in one container namespace (hence no default route: the pods would each add one there). The service's
# own warm-up (WarmUp: a default network's bridge + host-local ADD/DEL with a default route, and the pod chain, in
# namespaces of its own) runs meanwhile, yielding to these calls; the training waits for it to end before it stops the
# service, so that the cache holds its classes and profiles too (what a fresh service's first calls run).
# Everything it makes is inside the two namespaces and the work dir, which train-aot.sh removes, with every process
# still in the namespaces.
#
# The service in training runs with C1's thresholds at a fifth (-XX:Tier3InvocationThreshold=40 and the two beside it;
# its other flags are the shipped service's). A fresh service compiles at once what its training compiled
# (-XX:+AOTCompileEagerly), at the level the training reached, and a method run once per call reaches C1's default
# threshold (200 invocations) only in a training of more than 200 calls of its kind, which this one is not: a fresh
# service then ran such methods interpreted until its own 200th call (perf: about a fifth of its call threads' samples
# in calls 21-100 were in the interpreter). C2's thresholds stay: a training that also takes its methods to C2 (a
# 300-round warm-up was tried) hands a fresh service C2 code built on the warm-up's profile alone, and with one build
# of it, on a node of cluster_sim's, whose calls are cluster-ipam's, the JIT used up to four times the CPU (README,
# Performance).
set -eu

java=$1 output=$2 dist=$3 work=$4 container=$5
shift 5
flags=
while [ "$1" != -- ]; do flags="$flags $1"; shift; done
main=$2

say() { printf 'train-aot: service training: %s\n' "$*" >&2; }

mkdir -m 700 "$work/svc"
mkdir -p "$work/svc-net.d"
socket=$work/svc/plugins.sock
# shellcheck disable=SC2086
"$java" $flags -XX:Tier3InvocationThreshold=40 -XX:Tier3MinInvocationThreshold=20 -XX:Tier3CompileThreshold=400 \
    -XX:AOTCacheOutput="$output" -m "$main" --socket "$socket" > "$work/svc-service.log" 2>&1 &
service=$!
# shellcheck source=etcd-member.sh
. "$(dirname "$0")/etcd-member.sh"
stop() {
    kill "$service" 2>/dev/null || true
    wait "$service" 2>/dev/null || true
    stop_etcd
}
tries=0
while [ ! -S "$socket" ]; do
    if ! kill -0 "$service" 2>/dev/null || [ $tries -ge 600 ]; then
        cat "$work/svc-service.log" >&2; say "the service did not start"; stop; exit 1
    fi
    sleep 0.1; tries=$((tries + 1))
done

[ -z "$container" ] || ip link set lo up
# cluster-ipam's calls train against an etcd member of their own in this namespace (the image build's member listens
# on the host's loopback, which this namespace does not reach); without etcd they are left out, and the build says so.
[ -z "$container" ] || start_etcd aot-svc "$work/svc-etcd" "$work/svc-etcd.log"
[ -z "$container" ] || [ -n "$etcd_url" ] || say "no etcd: the service is trained without cluster-ipam's calls"
cat > "$work/svc-net.d/10-pods.conflist" <<CONF
{"cniVersion":"1.0.0","name":"jcni-aot-pods","plugins":[
 {"type":"bridge","bridge":"jcni-aot-br","isGateway":true,"ipMasq":true,"hairpinMode":true,
  "ipam":{"type":"host-local","dataDir":"$work/svc-ipam","ranges":[[{"subnet":"10.97.0.0/24"}]]}},
 {"type":"portmap","capabilities":{"portMappings":true},"snat":true},
 {"type":"firewall"},
 {"type":"tuning","sysctl":{"net.core.somaxconn":"512"},"dataDir":"$work/svc-tuning"}]}
CONF
cat > "$work/svc-net.d/20-lo.conflist" <<CONF
{"cniVersion":"1.0.0","name":"jcni-aot-lo","plugins":[{"type":"loopback"}]}
CONF

# A network on cluster-ipam, as cluster_sim's nodes have (its pods' interfaces beside the other network's, in the same
# container namespace, hence no routes).
cluster_ipam_conf='{"type":"cluster-ipam","nodeName":"aot","ranges":[[{"subnet":"10.96.0.0/24"}]],'\
'"etcd":{"endpoints":["'"$etcd_url"'"],"prefix":"/jcni-aot-svc"}}'
if [ -n "$etcd_url" ]; then
    cat > "$work/svc-net.d/30-cluster.conflist" <<CONF
{"cniVersion":"1.0.0","name":"jcni-aot-cluster","plugins":[
 {"type":"bridge","bridge":"jcni-aot-cbr","isGateway":true,"ipam":$cluster_ipam_conf}]}
CONF
fi

export JCNI_SERVICE_SOCKET="$socket" CNI_PATH="$dist/cni/bin"
cli() {
    "$dist/bin/jcni" --conf-dir "$work/svc-net.d" --cache-dir "$work/svc-cache" "$@"
}
# pod <command> <i>: one pod's networks, as a runtime runs them.
pod() {
    CAP_ARGS="{\"portMappings\":[{\"hostPort\":$((21000 + $2)),\"containerPort\":80,\"protocol\":\"tcp\"}]}" \
        cli --container-id "jcni-aot-pod-$2" --ifname "eth$2" "$1" jcni-aot-pods "$container" \
        > "$work/svc-pod-$2.out" 2>&1 || { cat "$work/svc-pod-$2.out" >&2; return 1; }
    if [ "$2" -le 2 ]; then
        cli --container-id "jcni-aot-pod-$2" --ifname "lo" "$1" jcni-aot-lo "$container" \
            > "$work/svc-lo-$2.out" 2>&1 || { cat "$work/svc-lo-$2.out" >&2; return 1; }
    fi
}
# cluster_pod <command> <i>: one pod on the cluster-ipam network; cluster_ipam <command> <i>: cluster-ipam called
# alone (as a main plugin delegates to it), with that network's configuration.
cluster_pod() {
    cli --container-id "jcni-aot-cpod-$2" --ifname "net$2" "$1" jcni-aot-cluster "$container" \
        > "$work/svc-cpod-$2.out" 2>&1 || { cat "$work/svc-cpod-$2.out" >&2; return 1; }
}
cluster_ipam() {
    printf '{"cniVersion":"1.0.0","name":"jcni-aot-cluster","type":"bridge","ipam":%s}' "$cluster_ipam_conf" \
        | CNI_COMMAND=$(echo "$1" | tr a-z A-Z) CNI_CONTAINERID="jcni-aot-ipam-$2" CNI_IFNAME=eth0 \
        CNI_NETNS="$container" "$dist/cni/bin/cluster-ipam" > "$work/svc-ipam-$2.out" 2>&1 || {
        cat "$work/svc-ipam-$2.out" >&2; return 1; }
}
# burst <command> [what]: pods 1..12 (or what's calls), four at a time.
burst() {
    for batch in 0 4 8; do
        pids=
        for i in 1 2 3 4; do
            ${2:-pod} "$1" $((batch + i)) & pids="$pids $!"
        done
        for pid in $pids; do
            wait "$pid" || { say "$1 of a pod failed"; stop; exit 1; }
        done
    done
}
for round in $([ -n "$container" ] && echo 1 2); do
    say "round $round: ADD, CHECK, DEL of 12 pods, four at a time"
    burst add
    burst check
    burst del
    if [ -n "$etcd_url" ]; then
        say "round $round: the same on the cluster-ipam network, then cluster-ipam alone"
        burst add cluster_pod
        burst check cluster_pod
        burst del cluster_pod
        burst add cluster_ipam
        burst del cluster_ipam
    fi
done
for type in $(ls "$dist/cni/bin"); do
    CNI_COMMAND=VERSION "$dist/cni/bin/$type" < /dev/null > /dev/null 2>&1 || {
        say "$type VERSION failed"; stop; exit 1; }
done
# The service's own warm-up begins once the service has had no call for 100 ms (its set-up too) and logs its end.
warm_up_end='^jcni serve: warm-up \(done\|stopped\)'
tries=0
while ! grep -q "$warm_up_end" "$work/svc-service.log"; do
    if [ $tries -ge 1200 ]; then say "the service's warm-up did not end in 120 s"; break; fi
    sleep 0.1; tries=$((tries + 1))
done
say "$(grep "$warm_up_end" "$work/svc-service.log" || true)"
# SIGTERM: the service lets its calls finish and exits; the JVM writes the AOT cache as it exits.
kill "$service"
status=0
wait "$service" || status=$?
stop_etcd
# 143: ended by SIGTERM (the JVM's status after its shutdown hooks ran).
if [ $status -ne 0 ] && [ $status -ne 143 ]; then
    cat "$work/svc-service.log" >&2; say "the service exited with status $status"; exit 1
fi
