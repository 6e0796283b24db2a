#!/usr/bin/env bash
# jcni against the Go reference, on this machine, in one run: the performance report of issue 7.
#
#   benchmarks/compare.sh [--quick] [--jmh] [--n N] [--n-full N] [--suites LIST] [--metrics-n N] [--no-setup]
#                         [--no-build]
#
# 1. scripts/setup (Debian's Go plugins, Go + libcni source, hyperfine, iproute2), then the build
#    (./mvnw -B -q package -DskipTests) and the Go peers (it/scripts/build-go-tools.sh: libcni-driver, trivial-plugin).
# 2. Checks that jcni's AOT caches are accepted (a stale cache silently doubles start-up).
# 3. Creates a network namespace that plays the host (bridges, host-side veths and forwarding sysctls live there) and
#    the container namespaces, then measures inside it (benchmarks/bench/measure.py), interleaved, three sides
#    alternating in every round: Go's plugins, jcni's exec'd without a service (the clients run their JVM launchers),
#    and jcni's through the plugin service (`jcni serve`, started in the bench host namespace on a private socket):
#    the service's RSS over 10,000 bridge ADD/DEL pairs through it (which also warms it) and the client's peak RSS;
#    VERSION exec; host-local ADD/DEL on an empty /16 and at 90 % of a /16; bridge + host-local ADD/DEL; three chains
#    run by jcni's runtime CLI (dist/bin/jcni) with each side's plugins: bridge -> tuning, bridge(ipMasq, hairpin) ->
#    tuning -> portmap with two published ports (issue 13's netfilter chain: its targets are judged through the
#    service, and the report splits the plugins' handler time, from their JCNI_DEBUG=1 lines, from the JVM starts) and
#    bridge -> bandwidth (issue 15); runtime exec overhead (Go libcni vs jcni's CniRuntime on the same trivial plugin);
#    cluster-ipam ADD/DEL, exec'd and through the service, against one etcd member started in the bench host
#    namespace, with Go's host-local as the anchor (Go has no etcd IPAM; issue 17); containerd 1.6's CRI starting and
#    removing pods on containerd's example network, one containerd per side in a node of its own (issue 22,
#    bench/containerd.py); the warm-up curve of a fresh service, with and without its AOT cache and its warm-up, against Go call by
#    call (cold, issue 25); pods started at once, 10, 40 and 100, each a Go libcni process, on a network of bridge ->
#    portmap -> firewall -> tuning (burst, issue 25); the service's bridge ADD/DEL with metrics on and off
#    (metrics, issue 28: bench/metrics_cost.py, two services of this dist side by side, one scraped every second,
#    rounds alternating which goes first; its own namespaces, named with this run's tag); cluster IPAM at cluster
#    scale (cluster-scale, issue 29: it/src/test/cluster/cluster_sim.py, the it module's ClusterScaleTest at full size:
#    a 3-member etcd, --cluster-nodes nodes each with its own `jcni serve`, --cluster-pods pods per node started at
#    once by Go libcni processes, bridge + cluster-ipam on one /20, then the same under faults: the etcd leader
#    killed, the leader stopped for 10 s, a node cut off from etcd, a node's service killed, a node gone for good;
#    its own namespaces, named with this run's tag). Peak RSS and CPU time of each exec from wait4. The service logs every call it runs, and each
#    suite's count must match its svc side's execs (a client that finds no service would run its JVM launcher
#    silently).
# 4. --jmh: the JMH suite, briefly, and netlink-ffm's first-handle start-up, in the same host namespace; folded into
#    the report.
# 5. Writes benchmarks/target/report/report.md, exec-latency.svg, results.json (raw samples), jmh.json.
# Everything it creates is removed on exit, also on failure or ^C. The real host's links, addresses, routes,
# namespaces, forwarding sysctls and CNI state directories are compared before and after (and while the run's
# namespaces still exist): a change this script could have made (a sysctl, CNI state, a name it uses) fails the run
# loudly; other programs' changes are printed and noted in the report.
#
# Options:
#   --quick          few rounds (n 5, 2 at 90 %, 1 warm-up), short JMH: proves the pipeline, not the numbers
#   --n N            measured rounds per exec measurement (default 40); --n-full N: at 90 % of a /16 (default 10)
#   --warmup N       warm-up rounds, discarded (default 3)
#   --suites LIST    comma-separated subset of: service,version,host-local,host-local-90,bridge,chain,netfilter,
#                    bandwidth,runtime,cluster-ipam,containerd,cold,burst,metrics,cluster-scale (the default) and the
#                    extras ptp, bridge-static
#   --cluster-nodes N, --cluster-pods N  cluster-scale suite: simulated nodes and pods per node (default 10 and
#                    100; --quick 3 and 20); --cluster-scenarios LIST: its scenarios (default all: ipam-alone,
#                    baseline,leader-kill,member-stop,node-cut,service-kill,node-gone; cluster_sim.py --help);
#                    --cluster-etcd-nice N: the etcd members' nice value (default 0, the nodes' own; -10 puts etcd's
#                    CPU before the nodes', as if it had machines of its own: README, "Cluster IPAM at scale")
#   --metrics-n N    metrics suite: measured ADD/DEL pairs per side (default 300; --quick 30), after a tenth of that
#                    (at least 1) as warm-up
#   --service-calls N  bridge ADD/DEL pairs through the service in the service suite (default 10000; --quick 200)
#   --cold-calls N   cold suite: calls through each fresh service (default 100; --quick 20); --cold-rounds N: fresh
#                    services per variant, with and without its AOT cache (default 5; --quick 1)
#   --burst-sizes L  burst suite: pods started at once, comma-separated (default 10,40,100; --quick 10);
#                    --burst-rounds N: bursts per size and side (default 3; --quick 1)
#   --jmh            also run the JMH benchmarks (codec, host-local on tmpfs, cluster-ipam against etcd, netlink,
#                    nftables transactions, runtime exec, bridge in-process)
#   --jmh-opts "..." JMH run shape (default "-f 1 -wi 2 -i 3 -w 1s -r 1s"; --quick: "-f 1 -wi 1 -i 1 -w 500ms -r 500ms")
#   --no-setup       skip scripts/setup;  --no-build: skip the Maven and Go builds (use what is built)
#   --out DIR        report directory (default benchmarks/target/report)
# Needs root (namespaces). Numbers on a shared or busy machine are noisy: compare ratios within one run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=$root/benchmarks/bench
out=$root/benchmarks/target/report
gobin=$root/benchmarks/target/go-bin
jar=$root/benchmarks/target/benchmarks.jar
args=("$@")
n='' n_full='' warmup='' quick=false jmh=false setup=true build=true jmh_opts='' service_calls=''
cold_calls='' cold_rounds='' burst_sizes='' burst_rounds='' metrics_n='' cluster_nodes='' cluster_pods=''
cluster_scenarios=all cluster_etcd_nice=0
suites=service,version,host-local,host-local-90,bridge,chain,netfilter,bandwidth,runtime,cluster-ipam,containerd,cold,burst
suites+=,metrics,cluster-scale

die() { echo "compare.sh: $*" >&2; exit 1; }
say() { echo "compare.sh: $*" >&2; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=true ;;
    --jmh) jmh=true ;;
    --n) n=${2:?--n needs a value}; shift ;;
    --n-full) n_full=${2:?--n-full needs a value}; shift ;;
    --warmup) warmup=${2:?--warmup needs a value}; shift ;;
    --suites) suites=${2:?--suites needs a value}; shift ;;
    --service-calls) service_calls=${2:?--service-calls needs a value}; shift ;;
    --cold-calls) cold_calls=${2:?--cold-calls needs a value}; shift ;;
    --cold-rounds) cold_rounds=${2:?--cold-rounds needs a value}; shift ;;
    --burst-sizes) burst_sizes=${2:?--burst-sizes needs a value}; shift ;;
    --burst-rounds) burst_rounds=${2:?--burst-rounds needs a value}; shift ;;
    --metrics-n) metrics_n=${2:?--metrics-n needs a value}; shift ;;
    --cluster-nodes) cluster_nodes=${2:?--cluster-nodes needs a value}; shift ;;
    --cluster-pods) cluster_pods=${2:?--cluster-pods needs a value}; shift ;;
    --cluster-scenarios) cluster_scenarios=${2:?--cluster-scenarios needs a value}; shift ;;
    --cluster-etcd-nice) cluster_etcd_nice=${2:?--cluster-etcd-nice needs a value}; shift ;;
    --jmh-opts) jmh_opts=${2:?--jmh-opts needs a value}; shift ;;
    --no-setup) setup=false ;;
    --no-build) build=false ;;
    --out) out=${2:?--out needs a value}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (--help)" ;;
  esac
  shift
done
if $quick; then
  n=${n:-5} n_full=${n_full:-2} warmup=${warmup:-1} service_calls=${service_calls:-200}
  cold_calls=${cold_calls:-20} cold_rounds=${cold_rounds:-1} burst_sizes=${burst_sizes:-10} burst_rounds=${burst_rounds:-1}
  metrics_n=${metrics_n:-30} cluster_nodes=${cluster_nodes:-3} cluster_pods=${cluster_pods:-20}
  jmh_opts=${jmh_opts:--f 1 -wi 1 -i 1 -w 500ms -r 500ms}
  block=10 factor=4
else
  n=${n:-40} n_full=${n_full:-10} warmup=${warmup:-3} service_calls=${service_calls:-10000}
  cold_calls=${cold_calls:-100} cold_rounds=${cold_rounds:-5} burst_sizes=${burst_sizes:-10,40,100}
  burst_rounds=${burst_rounds:-3} metrics_n=${metrics_n:-300} cluster_nodes=${cluster_nodes:-10}
  cluster_pods=${cluster_pods:-100}
  jmh_opts=${jmh_opts:--f 1 -wi 2 -i 3 -w 1s -r 1s}
  block=20 factor=5
fi
# The metrics and cluster-scale suites are not measure.py's: they make namespaces of their own, which must be made
# from this mount namespace (one made inside `ip netns exec` would be mounted there only), so this script runs them
# beside measure.py.
metrics=false cluster=false measure_suites=''
for s in ${suites//,/ }; do
  case $s in
    metrics) metrics=true ;;
    cluster-scale) cluster=true ;;
    *) measure_suites+=${measure_suites:+,}$s ;;
  esac
done
. "$root/scripts/as-root.sh"
as_root "it creates network namespaces" "$root/benchmarks/compare.sh" "${args[@]}"

# ---------------------------------------------------------------------------------------------- setup and build
if $setup; then
  say "scripts/setup"
  "$root/scripts/setup"
fi
if $build; then
  say "building jcni (./mvnw -B -q package -DskipTests)"
  (cd "$root" && ./mvnw -B -q package -DskipTests)
  "$root/it/scripts/build-go-tools.sh" "$gobin"
fi
[ ! -f "$gobin/SKIPPED" ] || die "Go peers not built: $(cat "$gobin/SKIPPED")"
# find-jdk.sh (what ./mvnw uses to pick a JDK >= 25) is not written for set -e.
set +e
# shellcheck source=/dev/null
. "$root/.mvn/find-jdk.sh"
set -e
java=$JAVA_HOME/bin/java
for f in "$root/dist/bin/jcni" "$root"/dist/cni/bin/{host-local,bridge,tuning,portmap,bandwidth,cluster-ipam} \
         /usr/lib/cni/{host-local,bridge,tuning,portmap,bandwidth} "$gobin/libcni-driver" "$gobin/trivial-plugin"; do
  [ -x "$f" ] || die "missing $f (run without --no-setup/--no-build)"
done
[ -f "$jar" ] || die "missing $jar (run without --no-build)"
command -v hyperfine >/dev/null || die "hyperfine is not installed (run without --no-setup)"
case ,$suites, in
  *,cluster-ipam,*|*,cluster-scale,*) command -v etcd >/dev/null || die "etcd is not installed (run without --no-setup)" ;;
esac
case ,$suites, in
  *,cluster-scale,*) command -v nft >/dev/null || die "nft is not installed (run without --no-setup)" ;;
esac
case ,$suites, in
  *,containerd,*)
    for f in /usr/bin/containerd /usr/bin/ctr /usr/sbin/runc /bin/busybox /usr/lib/cni/loopback \
             "$root"/dist/cni/bin/loopback; do
      [ -x "$f" ] || die "missing $f (run without --no-setup/--no-build)"
    done
    /usr/bin/python3 -c 'import grpc, google.protobuf' 2>/dev/null ||
      die "Debian's python3-grpcio and python3-protobuf are not installed (run without --no-setup)" ;;
esac

# A stale AOT cache is ignored with a warning and start-up silently doubles: -XX:AOTMode=on makes it fail instead.
for launcher in cni/bin/host-local cni/bin/bridge cni/bin/cluster-ipam; do
  JCNI_SERVICE_SOCKET=off JCNI_JAVA_OPTS=-XX:AOTMode=on CNI_COMMAND=VERSION "$root/dist/$launcher" \
    </dev/null >/dev/null || die "dist/$launcher: its AOT cache is not accepted (rebuild: ./mvnw -B package)"
done
JCNI_JAVA_OPTS=-XX:AOTMode=on "$root/dist/bin/jcni" --version >/dev/null ||
  die "dist/bin/jcni: its AOT cache is not accepted (rebuild: ./mvnw -B package)"

# ---------------------------------------------------------------------------------------------- the host check
# What must be the same before and after: the host's links, addresses, routes, namespaces, forwarding sysctls,
# nftables tables (the netfilter chain's plugins write nf_tables and iptables-nft rules) and the CNI state directories
# the plugins would use by default.
snapshot() {
  local k
  for k in net/ipv4/ip_forward net/ipv4/conf/all/forwarding net/ipv4/conf/default/forwarding \
           net/ipv6/conf/all/forwarding net/ipv6/conf/default/forwarding; do
    echo "sysctl $k=$(cat "/proc/sys/$k" 2>/dev/null || echo absent)"
  done
  ip -o link show 2>/dev/null | awk -F': ' '{sub(/@.*/, "", $2); print "link " $2}' | sort
  ip -o addr show 2>/dev/null | awk '{print "addr " $2 " " $4}' | sort
  ip route show 2>/dev/null | sed -e 's/ linkdown//' -e 's/^/route4 /' | sort
  ip -6 route show 2>/dev/null | sed -e 's/ expires [0-9]*sec//' -e 's/ linkdown//' -e 's/^/route6 /' | sort
  ip netns list 2>/dev/null | awk '{print "netns " $1}' | sort
  nft list tables 2>/dev/null | sed 's/^table /nft /' | sort
  for d in /var/lib/cni /var/lib/cni/networks /run/cni /run/cni/tuning; do
    [ -d "$d" ] && find "$d" -maxdepth 1 -mindepth 1 -printf "file $d/%f\n" | sort
  done
  # The containerd suite's pods and containers get cgroups under /<tag>-ctrd-<side> in every hierarchy.
  find /sys/fs/cgroup -mindepth 2 -maxdepth 2 -type d -name "$tag-*" -printf "cgroup %p\n" 2>/dev/null | sort
  return 0
}

tag=jcni-bench-$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
hostns=$tag-host
work=$(mktemp -d "/dev/shm/$tag.XXXXXX")
namespaces=()
before=$(snapshot)
# Lines of a snapshot difference this script could have caused: its namespaces, the links its plugins create
# (bridges named after the namespaces, veth<hex> host ends, bandwidth's bwp<hex> ifbs), their addresses and routes
# (10.211-215.x, 10.220-222.x), the tables of the netfilter chain's plugins (jcni's nftables, Go's iptables-nft),
# sysctls and CNI state files. Other differences are another program's doing on a shared machine: reported, not fatal.
links="(veth|bridge-|bstatic-|ptp-|chain-|bw-|bwp|svc-rss|jcni-bjmh|cold-|burst-)"
tables="(cni_hostport|cni_plugins_masquerade|jcni_firewall|nat|filter|mangle)"
ours="^[<>] (netns $tag|cgroup |sysctl |file |nft [a-z0-9]+ $tables\$|link $links|(addr|route[46]) .*( dev $links|"
ours+=" 10\.(21[1-5]|22[012])\.))"

# host_check <label>: 0 when the host matches the first snapshot (this run's own namespaces aside), else prints the
# difference and returns 1 (only other programs' changes) or 2 (changes this script could have made). A difference
# must persist for 10 s to count: other programs create and remove their own links and namespaces all the time.
host_check() {
  local now diff tries=0
  now=$(snapshot | grep -v "^netns $tag-")
  while [ "$now" != "$before" ] && [ $tries -lt 10 ]; do
    sleep 1; tries=$((tries + 1)); now=$(snapshot | grep -v "^netns $tag-")
  done
  [ "$now" != "$before" ] || return 0
  diff=$(diff <(echo "$before") <(echo "$now") | grep '^[<>]')
  if echo "$diff" | grep -Eq "$ours"; then
    { echo "compare.sh: THE HOST CHANGED ($1): forwarding sysctls, CNI state or names this script uses" \
           "(< before, > after):"
      echo "$diff"; } >&2
    return 2
  fi
  { echo "compare.sh: note: the host changed ($1), not in ways this script makes (another program?):"
    echo "$diff"; } >&2
  return 1
}

cleanup() {
  local rc=$? ns check=0
  trap - EXIT INT TERM
  set +e
  # This run's namespaces: those it made, and any other carrying its tag (e.g. a JMH trial's whose JVM was killed).
  # A process still running in one of them is this run's (measure.py's service or etcd, a JMH JVM or the etcd members
  # of its trial) that measure.py or JMH could not stop: stopped by id, TERM and then KILL.
  local pids=() pid i
  namespaces+=($(ip netns list 2>/dev/null | awk -v t="$tag" 'index($1, t) == 1 {print $1}'))
  for ns in "${namespaces[@]}"; do pids+=($(ip netns pids "$ns" 2>/dev/null)); done
  # The containerd suite's containers (in network namespaces of their own, in this run's cgroups).
  pids+=($(cat /sys/fs/cgroup/pids/"$tag"-*/cgroup.procs /sys/fs/cgroup/pids/"$tag"-*/*/cgroup.procs 2>/dev/null))
  if [ ${#pids[@]} -gt 0 ]; then
    say "stopping what this run left running in its namespaces: pids ${pids[*]}"
    kill "${pids[@]}" 2>/dev/null
    for i in $(seq 50); do
      for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && break; pid=''; done
      [ -n "$pid" ] || break
      sleep 0.2
    done
    kill -9 "${pids[@]}" 2>/dev/null
  fi
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null; done
  for d in /sys/fs/cgroup/*/"$tag"-*; do [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null; done
  rm -rf "$work"
  host_check "after the cleanup" || check=$?
  if [ $check -eq 2 ] && [ $rc -eq 0 ]; then rc=3; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------- measure
ip netns add "$hostns"
namespaces+=("$hostns")
ip -n "$hostns" link set lo up
suffixes=''
if [ -n "$measure_suites" ]; then
  suffixes=$(python3 "$bench/measure.py" namespaces --suites "$measure_suites" --burst-sizes "$burst_sizes")
fi
for suffix in $suffixes; do
  ip netns add "$tag-$suffix"
  namespaces+=("$tag-$suffix")
done

mkdir -p "$out"
rm -f "$out/report.md" "$out/exec-latency.svg" "$out/results.json" "$out/jmh.json" "$out/first-handle.txt" \
  "$out/metrics.json" "$out/cluster-scale.json"
# The client's peak RSS is read by a small static program (see its comment for why not Python's own wait4).
gcc -std=c11 -Wall -Wextra -Werror -O2 -static -o "$work/rss-probe" "$bench/rss-probe.c" ||
  die "cannot build rss-probe (gcc and libc6-dev: scripts/setup)"
python3 "$bench/machine.py" start --root "$root" --java "$java" >"$work/start.json"
if [ -n "$measure_suites" ]; then
  say "measuring: suites $measure_suites, n $n ($n_full at 90 %), warm-up $warmup, in namespace $hostns"
  ip netns exec "$hostns" python3 "$bench/measure.py" run --out "$work/results.json" --suites "$measure_suites" \
    --tag "$tag" --work "$work" --dist "$root/dist" --go-bin "$gobin" --java "$java" --jar "$jar" --n "$n" \
    --n-full "$n_full" --warmup "$warmup" --block "$block" --runtime-factor "$factor" \
    --service-calls "$service_calls" --rss-probe "$work/rss-probe" \
    --containerd-support "$root/it/src/test/containerd" --cold-calls "$cold_calls" --cold-rounds "$cold_rounds" \
    --burst-sizes "$burst_sizes" --burst-rounds "$burst_rounds"
else
  # Only the metrics and cluster-scale suites: the report's other sections have nothing to show.
  printf '{"n": %d, "n_full": %d, "warmup": %d, "suites": {}}\n' "$n" "$n_full" "$warmup" >"$work/results.json"
fi
cp "$work/results.json" "$out/results.json"

metrics_args=()
if $metrics; then
  metrics_warmup=$(( metrics_n / 10 > 0 ? metrics_n / 10 : 1 ))
  say "metrics suite: the service's bridge ADD/DEL with metrics on and off, $metrics_n pairs per side after" \
      "$metrics_warmup warm-up (bench/metrics_cost.py)"
  python3 "$bench/metrics_cost.py" --dist "$root/dist" --n "$metrics_n" --warmup "$metrics_warmup" --tag "$tag" \
    --json "$work/metrics.json" >&2 || die "the metrics suite failed (bench/metrics_cost.py, output above)"
  cp "$work/metrics.json" "$out/metrics.json"
  metrics_args=(--metrics "$out/metrics.json")
fi

cluster_args=()
if $cluster; then
  say "cluster-scale suite: $cluster_nodes nodes x $cluster_pods pods, scenarios $cluster_scenarios," \
      "etcd at nice $cluster_etcd_nice (it/src/test/cluster/cluster_sim.py)"
  # Exit 1: it ran, and a check found something (in the JSON, and in the report); anything else: it could not run.
  cluster_rc=0
  python3 "$root/it/src/test/cluster/cluster_sim.py" run --dist "$root/dist" --driver "$gobin/libcni-driver" \
    --tag "$tag-cs" --work "$work/cluster-scale" --etcd-data "$work/cluster-scale-etcd" \
    --json "$work/cluster-scale.json" --nodes "$cluster_nodes" --pods "$cluster_pods" \
    --scenarios "$cluster_scenarios" --etcd-nice "$cluster_etcd_nice" >&2 || cluster_rc=$?
  [ $cluster_rc -le 1 ] && [ -f "$work/cluster-scale.json" ] ||
    die "the cluster-scale suite could not run (cluster_sim.py exit $cluster_rc, output above)"
  [ $cluster_rc -eq 0 ] || say "cluster-scale: CHECKS FAILED (listed above and in the report)"
  cp "$work/cluster-scale.json" "$out/cluster-scale.json"
  cluster_args=(--cluster-scale "$out/cluster-scale.json")
fi

jmh_args=()
if $jmh; then
  say "JMH ($jmh_opts)"
  # In the host namespace too: BridgeInProcessBenchmark makes a bridge in its JVM's namespace (and its container
  # namespace, named with this run's tag, so that the cleanup finds it should its JVM be killed).
  # shellcheck disable=SC2086
  JCNI_BENCH_NETNS_PREFIX=$tag ip netns exec "$hostns" "$java" -Djmh.ignoreLock=true -jar "$jar" \
    'io\.jcni\.benchmarks\.codec\.CodecBenchmark' \
    'HostLocalBenchmark\.(allocate|release|findById)$' \
    'ClusterIpamBenchmark' \
    'NetlinkBenchmarks' \
    'NftablesBenchmark' \
    'RuntimeExecBenchmark\.(versionInfo|versionInfoWithLaunchHelper|processBuilderOnly)$' \
    'BridgeInProcessBenchmark' \
    -p fs=tmpfs -p pluginDir="$gobin" \
    $jmh_opts -rf json -rff "$work/jmh.json" >"$work/jmh.log" 2>&1 ||
    { tail -40 "$work/jmh.log" >&2; die "JMH failed (log above)"; }
  cp "$work/jmh.json" "$out/jmh.json"
  jmh_args=(--jmh "$out/jmh.json" --jmh-options "$jmh_opts")
  # netlink-ffm's first handle in a fresh JVM, with and without an AOT cache (issue 4's start-up figure).
  say "netlink first-handle start-up (FirstHandleStartup)"
  nl_jar=$(ls "$root"/netlink-ffm/target/jcni-netlink-ffm-*.jar | grep -v -e sources -e tests | head -1)
  probe_jar=$(ls "$root"/benchmarks/target/jcni-benchmarks-*.jar | head -1)
  ip netns exec "$hostns" "$java" -cp "$probe_jar:$nl_jar" io.jcni.benchmarks.netlink.FirstHandleStartup \
    "$nl_jar" "$probe_jar" "$($quick && echo 5 || echo 15)" >"$out/first-handle.txt" ||
    die "FirstHandleStartup failed"
  jmh_args+=(--first-handle "$out/first-handle.txt")
fi

python3 "$bench/machine.py" end >"$work/end.json"
# The real host must be as it was while everything of this run still exists (only its namespaces are new).
check=0
host_check "at the end of the measurements" || check=$?
case $check in
  0) host="unchanged" ;;
  1) host="changed, but only in ways this script does not make (another program's links or namespaces)" ;;
  *) host="CHANGED: forwarding sysctls, CNI state or names this script uses (see compare.sh's output)" ;;
esac
python3 "$bench/report.py" --results "$out/results.json" --start "$work/start.json" --end "$work/end.json" \
  "${jmh_args[@]}" "${metrics_args[@]}" "${cluster_args[@]}" --options="${args[*]}" --host-check="$host" --out "$out"
[ $check -ne 2 ] || die "the host changed (above); the report says so"
say "report: $out/report.md$([ -f "$out/exec-latency.svg" ] && echo ' (chart: exec-latency.svg)')"
