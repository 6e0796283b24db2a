#!/usr/bin/env python3
"""A simulated cluster for cluster-ipam at scale (issue 29): a real 3-member etcd, N nodes, P pods per node started
at once on every node, with faults during the burst. One implementation for both callers: the it module's
ClusterScaleTest (a CI size) and benchmarks/compare.sh's cluster-scale suite (the full size).

    cluster_sim.py run --dist DIST --driver LIBCNI_DRIVER --tag TAG --work DIR --json OUT
                       [--nodes N] [--pods P] [--scenarios LIST] [--ipam-parallel K] [options]
    cluster_sim.py worker SPEC            (internal: one node's runtime, run inside the node's namespace)

The world it builds (needs root; everything is named after TAG and removed on exit, also on failure or a signal):
- <TAG>-etcd, a network namespace holding a bridge (br0, 10.250.0.1/24) and the three etcd members (Debian's
  etcd-server, data on /dev/shm/<TAG>-etcd or --etcd-data, fsync on, clients on 10.250.0.1:23790-23792, peers on
  that namespace's loopback; at the nodes' priority unless --etcd-nice gives them another). This script itself
  switches into that namespace (setns) once it has made the others, so that it reaches etcd's client URLs as the
  nodes do; it reads etcd through its JSON gateway (urllib), not through cluster-ipam's gRPC client, so that its
  checks do not rest on the client they check.
- <TAG>-n<i>, one namespace per node, its eth0 a veth to br0 (10.250.0.<10+i>): the node's `jcni serve` runs there
  on a socket of its own with JCNI_NODE_NAME=node-<i>, and so does the node's runtime (a worker process that starts
  one Go libcni process, libcni-driver, per pod). A node is cut off from etcd by an nftables table in its namespace
  that drops its packets to and from the members.
- <TAG>-n<i>-p<j>, one namespace per pod, reused by every scenario (each scenario has an etcd prefix of its own, so
  its checks see only its own keys; the pods' bridge, cni-scale, stays on each node between scenarios).

Scenarios (--scenarios, comma-separated; `all` is every one, in this order):
  ipam-alone    cluster-ipam ADDs without bridge, P per node, K at a time per node (--ipam-parallel), then DELs
  baseline      bridge + cluster-ipam pods, P per node at once on all nodes; then the DEL of all
  leader-kill   as baseline, the etcd leader SIGKILLed mid-burst (restarted once the burst is over)
  member-stop   the leader SIGSTOPped mid-burst for --stop-seconds, then SIGCONT
  node-cut      node 0 cut off from etcd mid-burst for --cut-seconds: its ADDs must fail with code 11 and never
                hang; 8 cluster-ipam ADDs exec'd alone on the cut node as it is cut (JVM launchers) must each fail
                with code 11 within requestTimeoutSeconds (+3 s for the JVM); the failed pods are torn down (DEL)
                and ADDed again once the cut heals
  service-kill  node 0's service SIGKILLed mid-burst, restarted --down-seconds later; failed pods ADDed again
  node-gone     node N-1 gone for good mid-burst (every process in it SIGKILLed, cut off for ever); the others run
                STATUS every second as runtimes do; once its lease (nodeTtlSeconds, --ttl) expires, node 0's GC must
                reclaim its reservations and blocks and leave every live pod's keys alone
"Mid-burst": once --fault-at of the burst's pods have finished. Two warm-up rounds (warmup-ipam, as ipam-alone, and
warmup, 20 pods per node; checked, not judged for speed) run first unless --no-warmup: a node's service runs for days,
its JIT long since done. Before them the services' own warm-ups (`jcni serve` makes calls of its own in namespaces of
its own while its clients are quiet) have ended: ten at once would share the cores with the first rounds. A node's runtime runs in its service's mount namespace (see Node.runtime_argv).

Checks after every scenario (a failed check is a "problem" in the JSON; `run` exits 1 if any): every pod ended
(none hung past --hang-seconds); no address given to two pods; every live pod's address in etcd under its own key
(ip/<addr> names the pod, owner/<node>/<pod>/eth0 names the address); no address key but a live pod's or, where a
fault can lose an answer after the commit, a failed pod's (the runtime's DEL frees it); every failure a CNI error
from the plugin (libcni's cniError) with code 11 where etcd or the service was unreachable; the retried pods all
succeed; every DEL succeeds; nothing left under the prefix's ip/ and owner/ keys after the DELs; for node-gone, no
key of the lost node left after the GC.
"""
import argparse
import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import base64

PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
ETCD_IP = "10.250.0.1"
CLIENT_PORTS = (23790, 23791, 23792)
PEER_PORTS = (23800, 23801, 23802)
SUBNET = "10.96.0.0/20"
NETWORK = "scale"
BRIDGE = "cni-scale"
ALL = ["ipam-alone", "baseline", "leader-kill", "member-stop", "node-cut", "service-kill", "node-gone"]
TIMING = re.compile(r"^([\w-]+): timing ADD: (.*)$", re.M)
TIMING_ITEM = re.compile(r"([\w+-]+) (\d+) us")
MODE = re.compile(r"^([\w-]+): ADD (exec|via service|in-process), pid \d+$", re.M)
# The service's line when its own warm-up ended (logged at every level), however it ended.
WARM_UP_END = re.compile(r"^jcni serve: warm-up (?:done|stopped)", re.M)
SERVICE_RAN = re.compile(r"^jcni serve: ADD ([\w-]+) for .*: status (\d+); .* ran (\d+) us", re.M)
CLONE_NEWNET = 0x40000000


def log(text):
    print(f"cluster_sim: {text}", file=sys.stderr, flush=True)


def now():
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def sh(*cmd, check=True, stdin=None):
    r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env={"PATH": PATH})
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def percentile(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q / 100 * len(s) + 0.5)) - 1))]


def stat_cpu(path):
    """(name, utime + stime in seconds) from a process's or thread's stat file (proc(5)), None if it is gone."""
    try:
        with open(path) as f:
            text = f.read()
        name, rest = text[text.index("(") + 1:text.rindex(")")], text.rsplit(")", 1)[1].split()
        return name, (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def cpu_seconds(pid):
    """utime + stime of a process, 0 if it is gone."""
    stat = stat_cpu(f"/proc/{pid}/stat")
    return stat[1] if stat else 0.0


def jit_seconds(pid):
    """utime + stime of a JVM's JIT compiler threads (named "C1 CompilerThreadN", "C2 CompilerThreadN"), 0 if gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    stats = (stat_cpu(f"/proc/{pid}/task/{t}/stat") for t in tasks)
    return sum(sec for name, sec in filter(None, stats) if name.startswith(("C1 Compiler", "C2 Compiler")))


def machine_busy_seconds():
    """CPU time the whole machine spent busy (all cores), from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def hex4(address):
    return "".join(f"{int(o):02x}" for o in address.split("/")[0].split("."))


def b64(s):
    return base64.b64encode(s.encode()).decode()


class Problems(list):
    def check(self, ok, text):
        if not ok:
            self.append(text)
        return ok


# ---------------------------------------------------------------------------------------------- etcd


class Etcd:
    """The three members, in this process's (the etcd namespace's) network; read through their JSON gateway."""

    def __init__(self, work, tag, data, nice=0):
        self.data = data or f"/dev/shm/{tag}-etcd"
        self.work = work
        self.tag = tag
        self.nice = nice
        self.procs = [None, None, None]
        self.stopped = set()

    def url(self, i):
        return f"http://{ETCD_IP}:{CLIENT_PORTS[i]}"

    def endpoints(self):
        return [self.url(i) for i in range(3)]

    def start_member(self, i):
        cluster = ",".join(f"m{k}=http://127.0.0.1:{PEER_PORTS[k]}" for k in range(3))
        logf = open(os.path.join(self.work, f"etcd-m{i}.log"), "a")
        # Under nice(1) from its exec, so that every thread the Go runtime starts has the same priority.
        nice = ["nice", "-n", str(self.nice)] if self.nice else []
        self.procs[i] = subprocess.Popen(
            nice + ["etcd", "--name", f"m{i}", "--data-dir", os.path.join(self.data, f"m{i}"),
                    "--listen-client-urls", self.url(i), "--advertise-client-urls", self.url(i),
                    "--listen-peer-urls", f"http://127.0.0.1:{PEER_PORTS[i]}",
                    "--initial-advertise-peer-urls", f"http://127.0.0.1:{PEER_PORTS[i]}",
                    "--initial-cluster", cluster, "--initial-cluster-state", "new", "--initial-cluster-token",
                    self.tag, "--log-level", "error"],
            env={"PATH": PATH}, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT)
        logf.close()

    def start(self):
        os.makedirs(self.data, exist_ok=True)
        for i in range(3):
            self.start_member(i)
        self.await_healthy()

    def post(self, i, path, body, timeout=3):
        req = urllib.request.Request(self.url(i) + path, data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

    def up(self):
        return [i for i in range(3) if self.procs[i] is not None and self.procs[i].poll() is None
                and i not in self.stopped]

    def await_healthy(self, seconds=60):
        deadline = now() + seconds
        while True:
            try:
                for i in self.up():
                    self.post(i, "/v3/kv/put", {"key": b64("/health-probe"), "value": ""})
                return
            except (OSError, ValueError):
                if now() > deadline:
                    raise RuntimeError(f"etcd did not become healthy (logs in {self.work})")
                time.sleep(0.1)

    def leader(self, seconds=15):
        """The member that says it leads (asked again for a while: an election may be under way, or the machine so
        busy that a status request times out)."""
        deadline = now() + seconds
        while True:
            for i in self.up():
                try:
                    status = self.post(i, "/v3/maintenance/status", {})
                    if status.get("leader") and status["leader"] == status["header"]["member_id"]:
                        return i
                except (OSError, ValueError, KeyError):
                    continue
            if now() > deadline:
                raise RuntimeError(f"no etcd member said it is the leader within {seconds} s")
            time.sleep(0.1)

    def range(self, prefix):
        """{key: value} of every key under prefix, read (linearizable) from a member that answers."""
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        last = None
        for i in self.up():
            try:
                answer = self.post(i, "/v3/kv/range", {"key": b64(prefix), "range_end": b64(end)}, timeout=10)
                out = {}
                for kv in answer.get("kvs", []):
                    out[base64.b64decode(kv["key"]).decode()] = base64.b64decode(kv.get("value", "")).decode()
                return out
            except (OSError, ValueError) as e:
                last = e
        raise RuntimeError(f"no etcd member answered a range of {prefix}: {last}")

    def kill(self, i):
        p = self.procs[i]
        if p is not None:
            p.send_signal(signal.SIGKILL)
            p.wait()
            self.procs[i] = None
        self.stopped.discard(i)

    def stop(self, i):
        self.procs[i].send_signal(signal.SIGSTOP)
        self.stopped.add(i)

    def cont(self, i):
        self.procs[i].send_signal(signal.SIGCONT)
        self.stopped.discard(i)

    def close(self):
        for i in range(3):
            p = self.procs[i]
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
                p.wait()
        shutil.rmtree(self.data, ignore_errors=True)


# ---------------------------------------------------------------------------------------------- the cluster


class Node:
    def __init__(self, sim, i):
        self.sim, self.i = sim, i
        self.name = f"node-{i}"
        self.ns = f"{sim.tag}-n{i}"
        self.dir = os.path.join(sim.work, self.name)
        self.socket = os.path.join(self.dir, "service", "plugins.sock")
        self.service = None
        self.gone = False
        self.cut = False
        self.log_offset = 0

    def pod_ns(self, j):
        return f"{self.ns}-p{j}"

    def start_service(self):
        os.makedirs(os.path.dirname(self.socket), mode=0o700, exist_ok=True)
        if os.path.exists(self.socket):
            os.unlink(self.socket)  # a killed service's: the wait below is for the new one's
        logf = open(os.path.join(self.dir, "service.log"), "a")
        # JCNI_DEBUG=1: one line per call with its run time (the node-cut check reads them).
        self.service = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, self.sim.jcni, "serve", "--socket", self.socket],
            env={"PATH": PATH, "JCNI_DEBUG": "1", "JCNI_NODE_NAME": self.name}, stdin=subprocess.DEVNULL,
            stdout=logf, stderr=subprocess.STDOUT)
        logf.close()
        deadline = now() + 120
        while not os.path.exists(self.socket):
            if self.service.poll() is not None or now() > deadline:
                raise RuntimeError(f"{self.name}: jcni serve did not start (log {self.dir}/service.log)")
            time.sleep(0.05)

    def runtime_argv(self):
        """How the node's runtime starts: in the node's network namespace and in its service's mount namespace, as
        a runtime and a service share the host's on a real node (the one `ip netns exec` made for the service, with
        the node's /sys). Each `ip netns exec` makes a mount namespace of its own, and a client in another one than
        the service's costs every call a comparison of both mount tables, a thousand lines here (one per pod
        namespace of the whole simulated cluster, where a real node has its own pods' only)."""
        if self.service is not None and self.service.poll() is None:
            return ["nsenter", f"--mount=/proc/{self.service.pid}/ns/mnt", f"--net=/var/run/netns/{self.ns}"]
        return ["ip", "netns", "exec", self.ns]

    def kill_service(self):
        if self.service is not None and self.service.poll() is None:
            self.service.send_signal(signal.SIGKILL)
            self.service.wait()

    def stop_service(self):
        if self.service is not None and self.service.poll() is None:
            self.service.terminate()
            try:
                self.service.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill_service()

    def service_log(self):
        path = os.path.join(self.dir, "service.log")
        with open(path, errors="replace") as f:
            return f.read()

    def env(self, **extra):
        e = {"PATH": PATH, "JCNI_NODE_NAME": self.name, "JCNI_SERVICE_SOCKET": self.socket, "JCNI_DEBUG": "1"}
        e.update(extra)
        return e

    def set_cut(self, on):
        """Drops this node's packets to and from the etcd members (in its own namespace), or stops dropping them."""
        if on:
            ports = f"{CLIENT_PORTS[0]}-{CLIENT_PORTS[-1]}"
            rules = (f"table inet jcni_cut {{\n chain out {{ type filter hook output priority 0; policy accept;\n"
                     f"  ip daddr {ETCD_IP} tcp dport {ports} drop\n }}\n"
                     f" chain in {{ type filter hook input priority 0; policy accept;\n"
                     f"  ip saddr {ETCD_IP} tcp sport {ports} drop\n }}\n}}\n")
            sh("ip", "netns", "exec", self.ns, "nft", "-f", "-", stdin=rules)
        else:
            sh("ip", "netns", "exec", self.ns, "nft", "delete", "table", "inet", "jcni_cut")
        self.cut = on


class Sim:
    def __init__(self, a):
        self.a = a
        self.tag = a.tag
        self.work = os.path.abspath(a.work)
        self.jcni = os.path.join(a.dist, "bin", "jcni")
        self.cni_bin = os.path.join(a.dist, "cni", "bin")
        self.driver = a.driver
        self.nodes = [Node(self, i) for i in range(a.nodes)]
        self.etcd = Etcd(self.work, self.tag, a.etcd_data, a.etcd_nice)
        self.namespaces = []
        self.results = {"nodes": a.nodes, "pods": a.pods, "subnet": SUBNET, "block_size": a.block_size,
                        "dial_timeout_s": a.dial_timeout, "request_timeout_s": a.request_timeout,
                        "ttl_s": a.ttl, "ipam_parallel": a.ipam_parallel, "etcd_nice": a.etcd_nice, "scenarios": []}
        self.workers = []

    # ------------------------------------------------------------------------------------------ setup, teardown

    def setup(self):
        for f in (self.jcni, os.path.join(self.cni_bin, "bridge"), os.path.join(self.cni_bin, "cluster-ipam"),
                  self.driver, shutil.which("etcd") or "/usr/bin/etcd", shutil.which("nft") or "/usr/sbin/nft"):
            if not os.access(f, os.X_OK):
                raise RuntimeError(f"missing {f}")
        os.makedirs(self.work, exist_ok=True)
        t0 = now()
        etcd_ns = f"{self.tag}-etcd"
        names = [etcd_ns] + [n.ns for n in self.nodes]
        names += [n.pod_ns(j) for n in self.nodes for j in range(self.a.pods)]
        self.namespaces = names
        # One ip process for every namespace and link (a thousand `ip netns add` execs would take seconds).
        batch = [f"netns add {n}" for n in names]
        sh("ip", "-batch", "-", stdin="\n".join(batch) + "\n")
        batch = ["link set lo up", "link add br0 type bridge", f"addr add {ETCD_IP}/24 dev br0",
                 "link set br0 up"]
        for n in self.nodes:
            batch += [f"link add vn{n.i} type veth peer name eth0 netns {n.ns}", f"link set vn{n.i} master br0 up"]
        sh("ip", "-n", etcd_ns, "-batch", "-", stdin="\n".join(batch) + "\n")
        for n in self.nodes:
            sh("ip", "-n", n.ns, "-batch", "-", stdin=f"link set lo up\naddr add 10.250.0.{10 + n.i}/24 dev eth0\n"
                                                       "link set eth0 up\n")
        log(f"{len(names)} namespaces and {len(self.nodes)} node links in {now() - t0:.1f} s")
        fd = os.open(f"/var/run/netns/{etcd_ns}", os.O_RDONLY)
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns into the etcd namespace")
        os.close(fd)
        self.etcd.start()
        t1 = now()
        for n in self.nodes:
            os.makedirs(n.dir, exist_ok=True)
            n.start_service()
        nice = f", nice {self.a.etcd_nice}" if self.a.etcd_nice else ""
        log(f"etcd (3 members{nice}) and {len(self.nodes)} services up; the services took {now() - t1:.1f} s")
        self.await_warm_ups()

    def teardown(self):
        for w in self.workers:
            if w.poll() is None:
                w.kill()
        for n in self.nodes:
            n.kill_service()
        self.etcd.close()
        # Anything still running in our namespaces (a pod's driver, a plugin it exec'd): ours, stopped by id.
        pids = set()
        for ns in self.namespaces[:len(self.nodes) + 1]:
            r = sh("ip", "netns", "pids", ns, check=False)
            pids.update(int(p) for p in r.stdout.split())
        pids.discard(os.getpid())
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.namespaces:
            sh("ip", "-force", "-batch", "-", stdin="".join(f"netns del {n}\n" for n in self.namespaces),
               check=False)
        left = [n for n in self.namespaces if os.path.exists(f"/var/run/netns/{n}")]
        if left:
            log(f"namespaces left after the cleanup: {left}")
            return False
        return True

    # ------------------------------------------------------------------------------------------ configurations

    def ipam(self, scenario, ttl):
        return {"type": "cluster-ipam", "ranges": [[{"subnet": SUBNET}]], "routes": [{"dst": "0.0.0.0/0"}],
                "blockSize": self.a.block_size, "nodeTtlSeconds": ttl,
                "etcd": {"endpoints": self.etcd.endpoints(), "dialTimeoutSeconds": self.a.dial_timeout,
                         "requestTimeoutSeconds": self.a.request_timeout, "prefix": f"/scale/{scenario}"}}

    def write_confs(self, scenario, ttl):
        d = os.path.join(self.work, scenario)
        os.makedirs(d, exist_ok=True)
        ipam = self.ipam(scenario, ttl)
        confs = {
            # What the pods' runtime (Go libcni 1.1, protocol 1.0.0) reads.
            "list": {"cniVersion": "1.0.0", "name": NETWORK, "plugins": [
                {"type": "bridge", "bridge": BRIDGE, "isGateway": True, "ipam": ipam}]},
            # The same network as a plugin's configuration: cluster-ipam exec'd alone (ADD, DEL), and in 1.1.0 for
            # the STATUS and GC a 1.1 runtime sends.
            "ipam": {"cniVersion": "1.0.0", "name": NETWORK, "type": "bridge", "ipam": ipam},
            "ipam11": {"cniVersion": "1.1.0", "name": NETWORK, "type": "bridge", "ipam": ipam},
        }
        paths = {}
        for k, v in confs.items():
            paths[k] = os.path.join(d, f"{k}.json")
            with open(paths[k], "w") as f:
                json.dump(v, f)
        return d, paths, ipam["etcd"]["prefix"] + "/" + NETWORK + "/"

    # ------------------------------------------------------------------------------------------ bursts

    def pod_calls(self, node, command, scenario, conf, pods, d):
        calls = []
        for j in pods:
            cid = f"{scenario}-n{node.i}-p{j}"
            calls.append({"id": cid, "pod": j, "out": os.path.join(d, f"{command}-{cid}"),
                          "argv": [self.driver, command, "--cni-path", self.cni_bin, "--cache-dir",
                                   os.path.join(node.dir, "libcni-cache"), "--container-id", cid,
                                   "--timeout", f"{self.a.hang_seconds}s", conf, f"/var/run/netns/{node.pod_ns(j)}"],
                          "env": node.env(), "stdin": None})
        return calls

    def ipam_calls(self, node, command, scenario, conf, count, d):
        calls = []
        for j in range(count):
            cid = f"{scenario}-n{node.i}-c{j}"
            calls.append({"id": cid, "pod": j, "out": os.path.join(d, f"{command}-{cid}"),
                          "argv": [os.path.join(self.cni_bin, "cluster-ipam")],
                          "env": node.env(CNI_COMMAND=command.upper(), CNI_CONTAINERID=cid, CNI_IFNAME="eth0",
                                          CNI_NETNS=f"/var/run/netns/{node.pod_ns(0)}", CNI_PATH=self.cni_bin),
                          "stdin": conf})
        return calls

    def burst(self, label, calls_by_node, parallel=0, fault=None):
        """Runs every node's calls at once (a worker per node, in the node's namespace, released together); the
        fault, if any, is triggered once --fault-at of the calls have ended. Returns (wall s, results by node)."""
        d = os.path.join(self.work, "bursts", label)
        os.makedirs(d, exist_ok=True)
        progress = os.path.join(d, "progress")
        open(progress, "w").close()
        total = sum(len(c) for c in calls_by_node.values())
        workers = {}
        for node, calls in calls_by_node.items():
            for c in calls:
                c["out"] = os.path.join(d, c["id"])  # a retry's output beside, not over, the first ADD's
            spec = os.path.join(d, f"{node.name}.spec.json")
            with open(spec, "w") as f:
                json.dump({"calls": calls, "parallel": parallel, "hang_s": self.a.hang_seconds + 30,
                           "progress": progress, "out": os.path.join(d, f"{node.name}.results.json")}, f)
            w = subprocess.Popen(node.runtime_argv() + [sys.executable, os.path.abspath(__file__), "worker", spec],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={"PATH": PATH})
            self.workers.append(w)
            workers[node] = (w, spec)
        for w, _ in workers.values():
            if w.stdout.readline().strip() != b"ready":
                raise RuntimeError(f"{label}: a node worker did not start")
        cpu0 = self.cpu()
        start = now()
        for w, _ in workers.values():
            w.stdin.write(b"go\n")
            w.stdin.flush()
        fired = fault is None
        while any(w.poll() is None for w, _ in workers.values()):
            if not fired and os.path.getsize(progress) >= self.a.fault_at * total:
                fired = True
                fault.trigger_async(now() - start)
            time.sleep(0.02)
        wall = now() - start
        cpu1 = self.cpu()
        if not fired:
            fault.trigger_async(wall)
        results = {}
        for node, (w, spec) in workers.items():
            path = json.load(open(spec))["out"]
            if w.returncode == 0 and os.path.exists(path):
                with open(path) as f:
                    results[node] = json.load(f)
            elif not node.gone:
                raise RuntimeError(f"{label}: {node.name}'s worker failed (exit {w.returncode})")
        self.workers = [w for w in self.workers if w.poll() is None]
        # Per process: one started in between counts from zero; one killed in between loses what it used since the
        # start (the fault scenarios' figures are lower bounds).
        results["_cpu"] = {"machine": round(cpu1["machine"] - cpu0["machine"], 2)}
        for k in ("etcd", "services", "services_jit"):
            results["_cpu"][k] = round(sum(v - cpu0[k].get(pid, 0.0) for pid, v in cpu1[k].items()), 2)
        return wall, results, start

    def await_warm_ups(self):
        """Waits until every service's own warm-up ended, as a node's service started with the node has. The
        warm-ups yield to their own service's clients only: ten of them at once on this machine's cores (a real node
        has one) would otherwise share the cores, and the kernel's rtnl lock, with every other node's calls through
        the first rounds. A service restarted by a fault scenario is not waited for: its calls come at once."""
        t0 = now()
        deadline = t0 + self.a.warm_up_wait
        waiting = list(self.nodes)
        while waiting:
            left = []
            for n in waiting:
                with open(os.path.join(n.dir, "service.log"), errors="replace") as f:
                    if not WARM_UP_END.search(f.read()):
                        left.append(n)
                if n.service.poll() is not None:
                    raise RuntimeError(f"{n.name}: jcni serve ended during its warm-up (log {n.dir}/service.log)")
            waiting = left
            if waiting and now() > deadline:
                raise RuntimeError(f"the warm-ups of {[n.name for n in waiting]} did not end within "
                                   f"{self.a.warm_up_wait} s (--warm-up-wait)")
            if waiting:
                time.sleep(0.2)
        self.results["service_warm_up_s"] = round(now() - t0, 1)
        log(f"the services' own warm-ups ended {now() - t0:.1f} s later")

    def cpu(self):
        """CPU seconds so far: the etcd members', the services' and the whole machine's (the rest: the pods' Go
        processes, plugin clients, ip, the kernel's work for them, and anything else on the machine)."""
        services = [n.service.pid for n in self.nodes if n.service is not None and n.service.poll() is None]
        return {"etcd": {p.pid: cpu_seconds(p.pid) for p in self.etcd.procs if p is not None and p.poll() is None},
                "services": {pid: cpu_seconds(pid) for pid in services},
                # Of the services' CPU, their JIT compilers': a service still compiling the measured paths is not
                # the warm node the rounds stand for.
                "services_jit": {pid: jit_seconds(pid) for pid in services},
                "machine": machine_busy_seconds()}

    # ------------------------------------------------------------------------------------------ reading results

    @staticmethod
    def outcome(r):
        """One call's result: address (ADD that succeeded), CNI error (code, msg), alloc ms, mode."""
        o = {"id": r["id"], "pod": r["pod"], "exit": r["exit"], "ms": r["ms"], "hung": r["hung"]}
        out = r["stdout"]
        try:
            doc = json.loads(out) if out.strip() else None
        except ValueError:
            doc = None
        if r["exit"] == 0 and isinstance(doc, dict):
            ips = doc.get("ips") or []
            if ips:
                o["address"] = ips[0]["address"]
        elif isinstance(doc, dict):
            err = doc.get("cniError") if "cniError" in doc else doc  # the driver's document, or a plugin's own
            if isinstance(err, dict) and "code" in err:
                o["code"] = err.get("code")
                o["msg"] = err.get("msg", "")
            o["error"] = (doc.get("error") or doc.get("msg") or "")[:400]
        if "code" not in o and r["exit"] != 0:
            o["error"] = (out + r["stderr"])[:400]
        for plugin, items in TIMING.findall(r["stderr"]):
            pairs = TIMING_ITEM.findall(items)
            phases = {k: int(v) for k, v in pairs}
            if plugin == "bridge" and "ipam" in phases:
                o["alloc_ms"] = phases["ipam"] / 1000
            elif plugin == "cluster-ipam" and "handler" in phases:
                o["alloc_ms"] = phases["handler"] / 1000
            if plugin == "cluster-ipam":
                # Which path the allocation took (ClusterStore's phases): a read of etcd because the node's view
                # could not serve it, a wait for another call's such read, or the warm path (the view's write); and
                # the time of its "txn" phases, summed over its attempts (a phase line names one per attempt, and
                # the dict above keeps only the last). A "txn" phase runs from the phase before it: on the warm path
                # the quorum read, so it is the write alone; after a read it holds the plan too (a block claim's reads).
                o["path"] = "read" if "read" in phases else "wait" if "wait" in phases else "warm"
                if "txn" in phases:
                    o["txn_ms"] = sum(int(v) for k, v in pairs if k == "txn") / 1000
        modes = MODE.findall(r["stderr"])
        if modes:
            o["mode"] = modes[0][1]
        return o

    def summarize(self, command, wall, results, start):
        cpu = results.pop("_cpu", None)
        outs = []
        for node, res in results.items():
            for r in res["calls"]:
                o = self.outcome(r)
                o["node"] = node.name
                o["start_s"] = r["start"] - start
                outs.append(o)
        ok = [o for o in outs if o["exit"] == 0]
        failed = [o for o in outs if o["exit"] != 0]
        codes = {}
        for o in failed:
            codes[str(o.get("code"))] = codes.get(str(o.get("code")), 0) + 1
        modes = {}
        for o in ok:
            modes[o.get("mode", "unknown")] = modes.get(o.get("mode", "unknown"), 0) + 1
        ends = [r["start"] + r["ms"] / 1000 for res in results.values() for r in res["calls"]]
        if ends:
            # From the first spawn to the last exit (the workers' own clocks: CLOCK_MONOTONIC is the machine's).
            wall = max(ends) - min(r["start"] for res in results.values() for r in res["calls"])
        alloc = [o["alloc_ms"] for o in ok if "alloc_ms" in o]
        txn = [o["txn_ms"] for o in ok if "txn_ms" in o]
        paths = {}
        by_path = {}
        for o in ok:
            if "path" in o:
                paths[o["path"]] = paths.get(o["path"], 0) + 1
                if "alloc_ms" in o:
                    by_path.setdefault(o["path"], []).append(o["alloc_ms"])
        pod_ms = [o["ms"] for o in ok]
        return {"command": command, "calls": len(outs), "ok": len(ok), "failed": len(failed), "codes": codes,
                "wall_s": round(wall, 3), "per_s": round(len(ok) / wall, 1) if wall > 0 else None,
                "pod_ms_p50": percentile(pod_ms, 50), "pod_ms_p99": percentile(pod_ms, 99),
                "alloc_ms_p50": percentile(alloc, 50), "alloc_ms_p99": percentile(alloc, 99),
                "alloc_ms_max": max(alloc) if alloc else None, "modes": modes, "cpu_s": cpu,
                "txn_ms_p50": percentile(txn, 50), "txn_ms_p99": percentile(txn, 99), "paths": paths,
                # Each path's own allocation p99: whether the tail is the warm path's writes or the calls that read
                # etcd (a node's first ADD on the network, a full block) and those that waited for such a read.
                "alloc_ms_p99_by_path": {k: percentile(v, 99) for k, v in by_path.items()},
                "hung": [o["id"] for o in outs if o["hung"]],
                "failures": [{k: o.get(k) for k in ("id", "node", "code", "msg", "error", "ms", "start_s")}
                             for o in failed][:50],
                "_outs": outs, "_failed": failed}

    # ------------------------------------------------------------------------------------------ checks

    def check_live(self, prefix, live, failed_ids, problems, allow_failed_holders):
        """Every live pod's address under its own key; no address key but theirs (or a failed pod's, if allowed)."""
        keys = self.etcd.range(prefix)
        ip_keys = {k[len(prefix) + 5:]: v for k, v in keys.items() if k.startswith(prefix + "ip/4/")}
        owners = {k[len(prefix) + 6:]: v for k, v in keys.items() if k.startswith(prefix + "owner/")}
        seen = {}
        for o in live:
            seen.setdefault(o["address"], []).append(o["id"])
        dupes = {a: ids for a, ids in seen.items() if len(ids) > 1}
        problems.check(not dupes, f"addresses given to two pods: {dupes}")
        missing = []
        for o in live:
            h = hex4(o["address"])
            holder = f"{o['node']}\n{o['id']}\neth0"
            if ip_keys.get(h) != holder or owners.get(f"{o['node']}/{o['id']}/eth0") != f"4/{h}":
                missing.append(f"{o['id']} {o['address']}: ip={ip_keys.get(h)!r} "
                               f"owner={owners.get(o['node'] + '/' + o['id'] + '/eth0')!r}")
        problems.check(not missing, f"live pods whose address is not in etcd under their own key: {missing[:10]}")
        live_hex = {hex4(o["address"]) for o in live}
        extra = {h: v for h, v in ip_keys.items() if h not in live_hex}
        strangers = {h: v for h, v in extra.items() if v.split("\n")[1:2] and v.split("\n")[1] not in failed_ids}
        problems.check(not strangers, f"address keys held by no pod of this run: {list(strangers.items())[:10]}")
        if not allow_failed_holders:
            problems.check(not extra, f"address keys held by pods whose ADD failed: {list(extra.items())[:10]}")
        return {"ip_keys": len(ip_keys), "owner_keys": len(owners), "duplicates": dupes, "missing": missing[:10],
                "held_by_failed_pods": len(extra)}

    def check_empty(self, prefix, problems, label):
        keys = self.etcd.range(prefix)
        left = [k for k in keys if k.startswith(prefix + "ip/") or k.startswith(prefix + "owner/")]
        problems.check(not left, f"{label}: keys left after the DEL of all: {left[:10]}")
        blocks = len([k for k in keys if k.startswith(prefix + "block/")])
        return {"ip_owner_keys_left": len(left), "blocks_claimed": blocks}

    @staticmethod
    def check_failures(summary, problems, allowed, label):
        """Every failure a CNI error from the plugin with an allowed code; none hung."""
        problems.check(not summary["hung"], f"{label}: calls that hung (killed after the deadline): "
                                            f"{summary['hung'][:10]}")
        bad = [{k: f.get(k) for k in ("id", "code", "msg", "error")} for f in summary["_failed"]
               if f.get("code") not in allowed or not f.get("msg")]
        problems.check(not bad, f"{label}: failures other than a CNI error with code {sorted(allowed)}: {bad[:5]}")

    # ------------------------------------------------------------------------------------------ scenarios

    def run(self, scenarios):
        if not self.a.no_warmup:
            # A node's service runs for days: its JIT has long compiled the paths measured here. A round of each
            # (not judged for speed; the checks apply) before the measured ones. It does not get the services that
            # far: their compilers still take a sixth (pods) to a quarter (IPAM alone) of their CPU in the measured
            # bursts, and no less in a run with four rounds of each (services_jit in each scenario's CPU).
            self.ipam_alone("warmup-ipam")
            self.pods_scenario("warmup", None, pods=min(self.a.pods, 20))
        for s in scenarios:
            if s == "ipam-alone":
                self.ipam_alone()
            elif s == "node-gone":
                self.pods_scenario(s, NodeGone(self, self.nodes[-1]))
            elif s == "baseline":
                self.pods_scenario(s, None)
            elif s == "leader-kill":
                self.pods_scenario(s, LeaderKill(self))
            elif s == "member-stop":
                self.pods_scenario(s, MemberStop(self, self.a.stop_seconds))
            elif s == "node-cut":
                self.pods_scenario(s, NodeCut(self, self.nodes[0], self.a.cut_seconds))
            elif s == "service-kill":
                self.pods_scenario(s, ServiceKill(self, self.nodes[0], self.a.down_seconds))

    def ipam_alone(self, name="ipam-alone"):
        d, confs, prefix = self.write_confs(name, 3600)
        problems = Problems()
        log(f"{name}: {len(self.nodes)} nodes x {self.a.pods} cluster-ipam ADDs, {self.a.ipam_parallel} at a time"
            " per node")
        adds = {n: self.ipam_calls(n, "add", name, confs["ipam"], self.a.pods, d) for n in self.nodes}
        wall, res, start = self.burst(f"{name}-add", adds, parallel=self.a.ipam_parallel)
        add = self.summarize("ADD", wall, res, start)
        self.check_failures(add, problems, set(), "ADD")
        problems.check(set(add["modes"]) == {"via service"}, f"ADD: not all through the service: {add['modes']}")
        live = [o for o in add["_outs"] if "address" in o]
        problems.check(len(live) == add["calls"], f"ADD: {add['calls'] - len(live)} calls got no address")
        etcd = self.check_live(prefix, live, set(), problems, False)
        dels = {n: self.ipam_calls(n, "del", name, confs["ipam"], self.a.pods, d) for n in self.nodes}
        wall, res, start = self.burst(f"{name}-del", dels, parallel=self.a.ipam_parallel)
        dele = self.summarize("DEL", wall, res, start)
        self.check_failures(dele, problems, set(), "DEL")
        after = self.check_empty(prefix, problems, name)
        self.record(name, None, add, None, dele, etcd, after, problems)

    def pods_scenario(self, name, fault, pods=None):
        pods = self.a.pods if pods is None else pods
        ttl = self.a.ttl if isinstance(fault, NodeGone) else 3600
        d, confs, prefix = self.write_confs(name, ttl)
        problems = Problems()
        live_nodes = [n for n in self.nodes if not n.gone]
        log(f"{name}: {len(live_nodes)} nodes x {pods} pods at once (bridge + cluster-ipam through each node's "
            f"service){'' if fault is None else ', fault: ' + fault.what}")
        beats = Heartbeats(self, confs["ipam11"]) if isinstance(fault, NodeGone) else None
        if beats:
            beats.start()
        try:
            if fault is not None:
                fault.confs = confs
            adds = {n: self.pod_calls(n, "add", name, confs["list"], range(pods), d) for n in live_nodes}
            offsets = {n: len(n.service_log()) for n in live_nodes}
            wall, res, start = self.burst(f"{name}-add", adds, fault=fault)
            add = self.summarize("ADD", wall, res, start)
            fault_info = fault.heal() if fault is not None else None
            allowed = fault.codes if fault is not None else set()
            self.check_failures(add, problems, allowed, "ADD")
            if fault is None:
                problems.check(add["ok"] == add["calls"], f"ADD: {add['failed']} pods failed without a fault")
            if not isinstance(fault, ServiceKill):
                # With its service up, a node's calls all go through it (a client that finds none runs its JVM
                # launcher without a word: that would measure something else).
                problems.check(set(add["modes"]) <= {"via service"}, f"ADD: not all through the service: "
                                                                     f"{add['modes']}")
            if isinstance(fault, NodeCut):
                self.cut_node_times(fault.node, offsets[fault.node], problems, fault_info)
            gone = fault.node if isinstance(fault, NodeGone) else None
            outs = [o for o in add["_outs"] if gone is None or o["node"] != gone.name]
            failed_ids = {o["id"] for o in add["_outs"] if o["exit"] != 0}
            live = [o for o in outs if "address" in o]
            may_hold = isinstance(fault, (ServiceKill, NodeCut, LeaderKill, MemberStop))
            if gone is None:
                etcd = self.check_live(prefix, live, failed_ids, problems, may_hold)
            else:
                etcd = fault.reclaim(prefix, live, problems)
            # A runtime tears a pod whose ADD failed down (DEL) and tries again: once the fault healed, every such
            # pod must get an address.
            retry = None
            retry_ids = [o for o in outs if o["exit"] != 0]
            if retry_ids:
                by_node = {}
                for o in retry_ids:
                    node = next(n for n in self.nodes if n.name == o["node"])
                    by_node.setdefault(node, []).append(o["pod"])
                teardown = {n: self.pod_calls(n, "del", name, confs["list"], p, d) for n, p in by_node.items()}
                wall_t, res_t, start_t = self.burst(f"{name}-teardown", teardown)
                torn = self.summarize("DEL (teardown)", wall_t, res_t, start_t)
                self.check_failures(torn, problems, set(), "teardown")
                again = {n: self.pod_calls(n, "add", name, confs["list"], p, d) for n, p in by_node.items()}
                wall_r, res_r, start_r = self.burst(f"{name}-retry", again)
                retry = self.summarize("ADD (retry)", wall_r, res_r, start_r)
                self.check_failures(retry, problems, set(), "retry")
                problems.check(retry["ok"] == retry["calls"], f"retry: {retry['failed']} pods still failed")
                live = [o for o in live] + [o for o in retry["_outs"] if "address" in o]
                etcd["after_retry"] = self.check_live(prefix, live, set(), problems, False)
            # The runtime's DEL of every pod (the lost node's are gone with it).
            dels = {n: self.pod_calls(n, "del", name, confs["list"], range(pods), d)
                    for n in self.nodes if not n.gone}
            wall, res, start = self.burst(f"{name}-del", dels)
            dele = self.summarize("DEL", wall, res, start)
            self.check_failures(dele, problems, set(), "DEL")
            problems.check(dele["ok"] == dele["calls"], f"DEL: {dele['failed']} failed")
            after = self.check_empty(prefix, problems, name)
        finally:
            if beats:
                beats.stop()
        self.record(name, fault_info, add, retry, dele, etcd, after, problems)

    def cut_node_times(self, node, offset, problems, info):
        """The cut node's failed pod ADDs, from its service's log (how long each ran there: bridge's own work before
        and after the IPAM, which the burst's load stretches, and the IPAM's, which requestTimeoutSeconds bounds),
        and the probes: each failed with code 11, within requestTimeoutSeconds + 3 s (a JVM's start on the loaded
        machine)."""
        ran = [int(us) / 1000 for plugin, status, us in SERVICE_RAN.findall(node.service_log()[offset:])
               if status != "0" and plugin == "bridge"]
        problems.check(bool(ran), "node-cut: the cut node's service logged no failed pod ADD (was the cut too short?)")
        info["pod_failed_service_ms_max"] = max(ran) if ran else None
        codes = info.get("probe_codes", [])
        problems.check(codes and set(codes) == {11}, f"node-cut: the probes' codes during the cut: {codes}")
        worst = info.get("probe_wall_ms_max")
        problems.check(worst is not None and worst <= self.a.request_timeout * 1000 + 3000,
                       f"node-cut: a probe took {worst} ms, over requestTimeoutSeconds + 3 s")

    def record(self, name, fault, add, retry, dele, etcd, after, problems):
        for s in (add, retry, dele):
            if s is not None:
                s.pop("_outs", None)
                s.pop("_failed", None)
        entry = {"name": name, "fault": fault, "add": add, "retry": retry, "del": dele, "etcd": etcd,
                 "after_del": after, "problems": list(problems)}
        self.results["scenarios"].append(entry)
        by_path = add.get("alloc_ms_p99_by_path", {})
        cpu = add.get("cpu_s")
        paths = ", ".join(f"{k} {add['paths'].get(k, 0)}" + (f" (alloc p99 {by_path[k]} ms)" if k in by_path else "")
                          for k in ("warm", "read", "wait"))
        log(f"{name}: ADD {add['ok']}/{add['calls']} in {add['wall_s']} s ({add['per_s']}/s), alloc p50 "
            f"{add['alloc_ms_p50']} ms p99 {add['alloc_ms_p99']} ms (write p50 {add['txn_ms_p50']} ms p99 "
            f"{add['txn_ms_p99']} ms; paths {paths}), failures {add['codes']}"
            + (f", services' CPU {cpu['services']} s (JIT {cpu['services_jit']} s)" if cpu else "")
            + (f", retry {retry['ok']}/{retry['calls']}" if retry else "")
            + f"; DEL {dele['ok']}/{dele['calls']} in {dele['wall_s']} s"
            + (f"; PROBLEMS: {list(problems)}" if problems else "; checks passed"))


# ---------------------------------------------------------------------------------------------- faults


class Fault:
    codes = {11}

    def __init__(self, sim):
        self.sim = sim
        self.thread = None
        self.info = {"what": self.what}
        self.confs = None

    def trigger_async(self, at):
        self.info["at_s"] = round(at, 3)
        self.thread = threading.Thread(target=self.run_guarded, daemon=True)
        self.thread.start()

    def run_guarded(self):
        try:
            self.trigger()
        except Exception as e:  # recorded; the checks then fail the scenario
            self.info["error"] = repr(e)

    def heal(self):
        if self.thread is not None:
            self.thread.join()
        self.after()
        if "error" in self.info:
            raise RuntimeError(f"fault {self.what}: {self.info['error']}")
        return self.info

    def after(self):
        pass


class LeaderKill(Fault):
    what = "the etcd leader killed (SIGKILL), restarted after the burst"

    def trigger(self):
        self.victim = self.sim.etcd.leader()
        self.sim.etcd.kill(self.victim)
        self.info["member"] = f"m{self.victim}"
        log(f"leader-kill: SIGKILL of the leader m{self.victim} at {self.info['at_s']} s")

    def after(self):
        t = now()
        self.sim.etcd.start_member(self.victim)
        self.sim.etcd.await_healthy()
        self.info["rejoined_s"] = round(now() - t, 2)
        self.info["new_leader"] = f"m{self.sim.etcd.leader()}"


class MemberStop(Fault):
    def __init__(self, sim, seconds):
        self.what = f"the etcd leader stopped (SIGSTOP) for {seconds} s, then SIGCONT"
        self.seconds = seconds
        super().__init__(sim)

    def trigger(self):
        victim = self.sim.etcd.leader()
        self.sim.etcd.stop(victim)
        self.info["member"] = f"m{victim}"
        log(f"member-stop: SIGSTOP of the leader m{victim} at {self.info['at_s']} s")
        time.sleep(self.seconds)
        self.sim.etcd.cont(victim)
        log(f"member-stop: SIGCONT of m{victim}")

    def after(self):
        self.sim.etcd.await_healthy()


class NodeCut(Fault):
    """Besides the pods in flight, PROBES cluster-ipam ADDs exec'd on the cut node as it is cut, through their JVM
    launchers (the node's service is busy with its pods: probes queued behind them could run after the heal): each
    must fail with code 11 within requestTimeoutSeconds and the JVM's start."""
    PROBES = 8

    def __init__(self, sim, node, seconds):
        self.what = f"{node.name} cut off from etcd (nftables drop in its namespace) for {seconds} s"
        self.node, self.seconds = node, seconds
        super().__init__(sim)

    def trigger(self):
        self.node.set_cut(True)
        cut = now()
        log(f"node-cut: {self.node.name} cut off at {self.info['at_s']} s")
        probes = threading.Thread(target=self.probe, daemon=True)
        probes.start()
        time.sleep(max(0.0, self.seconds - (now() - cut)))
        self.node.set_cut(False)
        log(f"node-cut: {self.node.name} reconnected")
        probes.join()

    def probe(self):
        with open(self.confs["ipam"]) as f:
            body = f.read().encode()
        probes = []
        for k in range(self.PROBES):
            env = self.node.env(CNI_COMMAND="ADD", CNI_CONTAINERID=f"cut-probe-{k}", CNI_IFNAME="eth0",
                                CNI_PATH=self.sim.cni_bin, CNI_NETNS=f"/var/run/netns/{self.node.pod_ns(0)}",
                                JCNI_SERVICE_SOCKET="off")
            p = subprocess.Popen(["ip", "netns", "exec", self.node.ns, os.path.join(self.sim.cni_bin, "cluster-ipam")],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            p.stdin.write(body)
            p.stdin.close()
            probes.append((p, now(), env))
        codes, walls, msgs = [], [], set()
        for p, t, env in probes:
            out = p.stdout.read()
            p.wait(timeout=self.sim.a.hang_seconds)
            walls.append(round((now() - t) * 1000))
            try:
                doc = json.loads(out) if p.returncode != 0 else {"code": 0}
            except ValueError:
                doc = {"code": None, "msg": out[:300].decode(errors="replace")}
            codes.append(doc.get("code"))
            if doc.get("msg"):
                msgs.add(doc["msg"][:300])
            if p.returncode == 0:
                # Its IPAM ran after the heal (a slow JVM start): give the address back; the check reports it.
                env["CNI_COMMAND"] = "DEL"
                subprocess.run(["ip", "netns", "exec", self.node.ns, os.path.join(self.sim.cni_bin, "cluster-ipam")],
                               input=body, capture_output=True, env=env, timeout=self.sim.a.hang_seconds)
        self.info["probe_codes"] = codes
        self.info["probe_messages"] = sorted(msgs)
        self.info["probe_wall_ms_max"] = max(walls)


class ServiceKill(Fault):
    def __init__(self, sim, node, seconds):
        self.what = f"{node.name}'s jcni serve killed (SIGKILL), restarted {seconds} s later"
        self.node, self.seconds = node, seconds
        super().__init__(sim)

    def trigger(self):
        self.node.kill_service()
        log(f"service-kill: {self.node.name}'s service killed at {self.info['at_s']} s")
        time.sleep(self.seconds)
        t = now()
        self.node.start_service()
        self.info["restart_s"] = round(now() - t, 2)
        log(f"service-kill: {self.node.name}'s service restarted")


class NodeGone(Fault):
    codes = {11}

    def __init__(self, sim, node):
        self.what = (f"{node.name} gone for good (its service, runtime and pods SIGKILLed, cut off from etcd); "
                     f"nodeTtlSeconds {sim.a.ttl}, node-0's GC reclaims")
        self.node = node
        super().__init__(sim)

    def trigger(self):
        self.node.gone = True
        self.node.set_cut(True)
        self.node.kill_service()
        # Its runtime and every pod process: again until none is left (a client may have started a JVM launcher).
        for _ in range(10):
            pids = sh("ip", "netns", "pids", self.node.ns, check=False).stdout.split()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        self.gone_at = now()
        log(f"node-gone: {self.node.name} gone at {self.info['at_s']} s")

    def reclaim(self, prefix, live, problems):
        """Waits for the lost node's lease to expire, runs node-0's GC, and checks what it left."""
        gone = self.node.name
        keys = self.sim.etcd.range(prefix)
        held = [k for k, v in keys.items() if k.startswith(prefix + "ip/") and v.startswith(gone + "\n")]
        blocks = [k for k, v in keys.items() if k.startswith(prefix + "block/") and v == gone]
        self.info["lost_node_addresses"] = len(held)
        self.info["lost_node_blocks"] = len(blocks)
        deadline = now() + self.sim.a.ttl + 30
        while prefix + "node/" + gone in self.sim.etcd.range(prefix + "node/"):
            if now() > deadline:
                problems.append(f"node-gone: {gone}'s liveness key did not expire")
                break
            time.sleep(0.2)
        self.info["lease_expired_after_s"] = round(now() - self.gone_at, 2)
        survivor = self.sim.nodes[0]
        valid = [{"containerID": o["id"], "ifname": "eth0"} for o in live if o["node"] == survivor.name]
        with open(self.confs["ipam11"]) as f:
            conf = json.load(f)
        conf["cni.dev/valid-attachments"] = valid
        t = now()
        r = subprocess.run(["ip", "netns", "exec", survivor.ns, os.path.join(self.sim.cni_bin, "cluster-ipam")],
                           input=json.dumps(conf), capture_output=True, text=True, timeout=120,
                           env=survivor.env(CNI_COMMAND="GC", CNI_PATH=self.sim.cni_bin))
        self.info["gc_s"] = round(now() - t, 2)
        problems.check(r.returncode == 0, f"node-gone: GC on {survivor.name} failed: {r.stdout} {r.stderr}")
        keys = self.sim.etcd.range(prefix)
        left = [k for k, v in keys.items() if ("/" + gone + "/") in k or k.endswith("/" + gone)
                or v == gone or v.startswith(gone + "\n")]
        problems.check(not left, f"node-gone: keys of {gone} left after the GC: {left[:10]}")
        self.info["lost_node_keys_after_gc"] = len(left)
        return self.sim.check_live(prefix, live, set(), problems, False)


class Heartbeats:
    """STATUS every second on every live node, through its service, as containerd and CRI-O call it: keeps the live
    nodes' liveness keys fresh while a short nodeTtlSeconds lets a lost node's expire."""

    def __init__(self, sim, conf):
        self.sim, self.conf = sim, conf
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.failures = 0

    def start(self):
        self.thread.start()

    def loop(self):
        with open(self.conf) as f:
            body = f.read()
        while not self.stopping.wait(1.0):
            for n in self.sim.nodes:
                if n.gone:
                    continue
                r = subprocess.run(["ip", "netns", "exec", n.ns, os.path.join(self.sim.cni_bin, "cluster-ipam")],
                                   input=body, capture_output=True, text=True, timeout=60,
                                   env=n.env(CNI_COMMAND="STATUS", CNI_PATH=self.sim.cni_bin))
                if r.returncode != 0:
                    self.failures += 1

    def stop(self):
        self.stopping.set()
        self.thread.join()


# ---------------------------------------------------------------------------------------------- the node worker


def worker(spec_path):
    """One node's runtime: starts its calls (all at once, or `parallel` at a time), times each from its spawn to its
    exit, kills one that outlives hang_s, and writes the results. Runs inside the node's namespace."""
    with open(spec_path) as f:
        spec = json.load(f)
    calls = spec["calls"]
    progress = os.open(spec["progress"], os.O_WRONLY | os.O_APPEND)
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        sys.exit(1)
    running = {}
    lock = threading.Lock()
    results = []

    def spawn(c):
        actions = [(os.POSIX_SPAWN_OPEN, 0, c["stdin"] or "/dev/null", os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, c["out"] + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
                   (os.POSIX_SPAWN_OPEN, 2, c["out"] + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
        start = now()
        pid = os.posix_spawn(c["argv"][0], c["argv"], c["env"], file_actions=actions)
        with lock:
            running[pid] = (c, start)
        return pid

    def finish(pid, status):
        end = now()
        with lock:
            c, start = running.pop(pid)
            hung = pid in killed
        os.write(progress, b"x")
        with open(c["out"] + ".out", errors="replace") as f:
            out = f.read()
        with open(c["out"] + ".err", errors="replace") as f:
            err = f.read()
        results.append({"id": c["id"], "pod": c["pod"], "exit": os.waitstatus_to_exitcode(status),
                        "start": start, "ms": (end - start) * 1000, "stdout": out[:4000], "stderr": err[:4000],
                        "hung": hung})

    killed = set()
    stop = threading.Event()

    def watchdog():
        while not stop.wait(0.5):
            t = now()
            with lock:
                late = [pid for pid, (c, s) in running.items() if t - s > spec["hang_s"] and pid not in killed]
                killed.update(late)
            for pid in late:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    dog = threading.Thread(target=watchdog, daemon=True)
    dog.start()
    if spec["parallel"] <= 0:
        for c in calls:
            spawn(c)
        for _ in calls:
            pid, status = os.wait()
            finish(pid, status)
    else:
        queue = list(calls)
        qlock = threading.Lock()

        def loop():
            while True:
                with qlock:
                    if not queue:
                        return
                    c = queue.pop(0)
                pid = spawn(c)
                _, status = os.waitpid(pid, 0)
                finish(pid, status)

        threads = [threading.Thread(target=loop) for _ in range(spec["parallel"])]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    stop.set()
    with open(spec["out"], "w") as f:
        json.dump({"calls": results}, f)


# ---------------------------------------------------------------------------------------------- main


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("worker")
    w.add_argument("spec")
    r = sub.add_parser("run")
    r.add_argument("--dist", required=True)
    r.add_argument("--driver", required=True, help="the Go libcni driver (it/scripts/build-go-tools.sh)")
    r.add_argument("--tag", required=True, help="prefix of every namespace made")
    r.add_argument("--work", required=True, help="directory for configurations, logs and results")
    r.add_argument("--json", required=True, help="where the results go")
    r.add_argument("--etcd-data", help="the members' data directory (default /dev/shm/<TAG>-etcd: tmpfs); removed")
    r.add_argument("--nodes", type=int, default=3)
    r.add_argument("--pods", type=int, default=100, help="pods (and cluster-ipam calls) per node")
    r.add_argument("--scenarios", default="all")
    r.add_argument("--ipam-parallel", type=int, default=10, help="ipam-alone: calls at a time per node")
    r.add_argument("--block-size", type=int, default=26)
    r.add_argument("--dial-timeout", type=int, default=1, help="etcd.dialTimeoutSeconds")
    r.add_argument("--request-timeout", type=int, default=5, help="etcd.requestTimeoutSeconds")
    r.add_argument("--ttl", type=int, default=6, help="node-gone: nodeTtlSeconds")
    r.add_argument("--stop-seconds", type=float, default=10)
    r.add_argument("--cut-seconds", type=float, default=8)
    r.add_argument("--down-seconds", type=float, default=2)
    r.add_argument("--fault-at", type=float, default=0.2, help="fraction of the burst's pods done at the fault")
    r.add_argument("--etcd-nice", type=int, default=0,
                   help="the etcd members' nice value (default 0, the nodes' own): below 0, etcd's CPU comes before"
                        " the simulated nodes', as if it ran on machines of its own (README, cluster IPAM at scale)")
    r.add_argument("--hang-seconds", type=int, default=90, help="a pod still running after this has hung")
    r.add_argument("--no-warmup", action="store_true")
    r.add_argument("--warm-up-wait", type=float, default=300,
                   help="seconds to wait for the services' own warm-ups to end before the first round")
    a = p.parse_args()
    if a.cmd == "worker":
        worker(a.spec)
        return
    scenarios = ALL if a.scenarios == "all" else a.scenarios.split(",")
    unknown = [s for s in scenarios if s not in ALL]
    if unknown:
        raise SystemExit(f"unknown scenario(s) {unknown}; known: {','.join(ALL)}")
    if "node-gone" in scenarios and scenarios[-1] != "node-gone":
        raise SystemExit("node-gone must be the last scenario (its node stays gone)")
    if not 1 <= a.nodes <= 200 or a.pods < 1:
        raise SystemExit("--nodes 1..200, --pods >= 1")
    if "node-gone" in scenarios and a.nodes < 2:
        raise SystemExit("node-gone needs at least 2 nodes")
    sim = Sim(a)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    t0 = time.time()
    rc = 0
    try:
        sim.setup()
        sim.run(scenarios)
    except Exception as e:
        sim.results["error"] = repr(e)
        log(f"FAILED: {e!r}")
        rc = 2
    finally:
        clean = sim.teardown()
        sim.results["cleanup_complete"] = clean
        sim.results["seconds"] = round(time.time() - t0, 1)
        with open(a.json, "w") as f:
            json.dump(sim.results, f, indent=1)
    problems = [f"{s['name']}: {p}" for s in sim.results["scenarios"] for p in s["problems"]]
    if not clean:
        problems.append("the cleanup left namespaces")
    for p_ in problems:
        log(f"PROBLEM {p_}")
    sys.exit(rc or (1 if problems else 0))


if __name__ == "__main__":
    main()
