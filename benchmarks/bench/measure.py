#!/usr/bin/env python3
"""The measuring half of benchmarks/compare.sh: execs Go's and jcni's plugins (and runtimes) interleaved, and writes
every raw sample to a JSON file. Statistics, targets and the report are report.py's business; nothing here judges.

    measure.py namespaces --suites LIST          the container namespaces the suites need (suffixes, one a line)
    measure.py run --out FILE [options]          measure; run it inside the bench "host" namespace (ip netns exec)

How one exec is timed (suites version, host-local, host-local-90, bridge, chain, netfilter, bandwidth, ptp, bridge-static): posix_spawn of
the executable with the environment and stdin a runtime gives a plugin (stdout and stderr to files), then wait4; wall
time from just before the spawn to the reaped exit, CPU time (user + system) and peak RSS (ru_maxrss: the largest
process of the exec's tree, e.g. a plugin and the IPAM plugin it execs) from the child's rusage. A failed exec (exit
status other than 0, or an ADD that prints no IP) stops the run: timing a failure would be meaningless.

Interleaving: every round runs each variant of a suite once, Go and jcni alternating which goes first, so that
background load (this machine is shared) hits both alike; the first rounds are warm-up and are recorded as such
(report.py drops them). The runtime suite alternates blocks instead: a block of Go libcni calls (libcni-driver
bench-exec, one process per block) and a block of jcni runtime calls (ExecLoop, one long-lived JVM, as a Java runtime
is), both execing the same trivial Go plugin; the first block of each is warm-up.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
PHASE = re.compile(r"timing (ADD|DEL): (.*)")
PHASE_ITEM = re.compile(r"([\w+-]+) (\d+) us")
# A plugin's timing line as a runtime passes its stderr on: "<type>: timing ADD: ..., handler N us".
PLUGIN_HANDLER = re.compile(r"^([\w-]+): timing (?:ADD|DEL): .*handler (\d+) us", re.M)

# suite -> the container namespaces it needs (compare.sh creates <tag>-<suffix> before entering the host namespace:
# a namespace created from inside `ip netns exec` would be mounted in that mount namespace only).
NAMESPACES = {
    "bridge": ["bridge-go", "bridge-jcni"],
    "bridge-static": ["bstatic-go", "bstatic-jcni"],
    "ptp": ["ptp-go", "ptp-jcni"],
    "chain": ["chain-go", "chain-jcni"],
    "bandwidth": ["bw-go", "bw-jcni"],
    "netfilter": ["chain-nf-go", "chain-nf-jcni"],
}
# Second octet of each suite's subnets: bridges and ptp's host ends all live in the one bench host namespace.
SUBNETS = {"bridge": 211, "bridge-static": 212, "ptp": 213}
DEFAULT_SUITES = ["version", "host-local", "host-local-90", "bridge", "chain", "netfilter", "bandwidth", "runtime",
                  "cluster-ipam"]
ALL_SUITES = DEFAULT_SUITES + ["ptp", "bridge-static"]


class ExecFailed(Exception):
    pass


class Variant:
    """One command of a suite, e.g. Go's bridge ADD: argv, environment, stdin file, and its samples."""

    def __init__(self, name, side, argv, env, stdin, check=None, phases=False, handlers=()):
        self.name, self.side, self.argv, self.env, self.stdin = name, side, argv, env, stdin
        self.check = check
        self.phases = phases
        self.handlers = handlers  # plugin types whose handler times (JCNI_DEBUG lines) a runtime's stderr carries
        self.samples = []  # {"wall_ms", "cpu_ms", "rss_kb", "warmup", "phases"?}

    def run(self, work, warmup):
        out_path = os.path.join(work, "exec.out")
        err_path = os.path.join(work, "exec.err")
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, self.stdin, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
            (os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
        ]
        start = time.perf_counter_ns()
        pid = os.posix_spawn(self.argv[0], self.argv, self.env, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter_ns() - start
        with open(out_path, "rb") as f:
            out = f.read()
        with open(err_path, "rb") as f:
            err = f.read().decode(errors="replace")
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise ExecFailed(f"{self.name}: exit status {code}\n  argv: {self.argv}\n  stdout: {out[:2000]!r}\n"
                             f"  stderr: {err[:2000]}")
        if self.check:
            self.check(self.name, out)
        sample = {"wall_ms": wall / 1e6, "cpu_ms": (usage.ru_utime + usage.ru_stime) * 1000,
                  "rss_kb": usage.ru_maxrss, "warmup": warmup}
        if self.phases:
            lines = [m for m in PHASE.finditer(err)]
            if lines:
                phases = {}
                for key, value in PHASE_ITEM.findall(lines[-1].group(2)):
                    phases[key] = phases.get(key, 0) + int(value) / 1000
                sample["phases"] = phases
        if self.handlers:
            found = {}
            for plugin, us in PLUGIN_HANDLER.findall(err):
                if plugin in self.handlers:
                    found[plugin] = found.get(plugin, 0) + int(us) / 1000
            missing = [h for h in self.handlers if h not in found]
            if missing:
                raise ExecFailed(f"{self.name}: no timing line of {missing} in stderr: {err[:2000]}")
            sample["handlers"] = found
        self.samples.append(sample)

    def record(self):
        return {"name": self.name, "side": self.side, "argv": self.argv, "samples": self.samples}


def has_ip(name, out):
    try:
        result = json.loads(out)
    except ValueError as e:
        raise ExecFailed(f"{name}: stdout is not JSON ({e}): {out[:500]!r}")
    if not result.get("ips"):
        raise ExecFailed(f"{name}: the result has no IP: {out[:500]!r}")


def has_versions(name, out):
    try:
        ok = bool(json.loads(out).get("supportedVersions"))
    except ValueError:
        ok = False
    if not ok:
        raise ExecFailed(f"{name}: not a VERSION answer: {out[:500]!r}")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def interleave(variants_by_step, rounds, warmup, work, progress):
    """variants_by_step: list of (go variant, jcni variant) run in this order each round; the side that goes first
    alternates from round to round."""
    for r in range(warmup + rounds):
        for pair in variants_by_step:
            ordered = pair if r % 2 == 0 else tuple(reversed(pair))
            for v in ordered:
                v.run(work, r < warmup)
        progress(r + 1, warmup + rounds)


class Measure:
    def __init__(self, args):
        self.a = args
        self.work = args.work
        self.dist = os.path.join(args.dist, "cni", "bin")
        self.jcni_cli = os.path.join(args.dist, "bin", "jcni")
        self.go = args.go_plugins
        self.suites = {}

    def log(self, text):
        print(f"measure: {text}", file=sys.stderr, flush=True)

    def progress(self, suite):
        last = [0.0]

        def report(done, total):
            now = time.monotonic()
            if done == total or now - last[0] > 10:
                last[0] = now
                self.log(f"{suite}: round {done}/{total}")
        return report

    def env(self, **extra):
        e = {"PATH": PATH}
        e.update({k: v for k, v in extra.items() if v is not None})
        return e

    def netns(self, suffix):
        return f"/var/run/netns/{self.a.tag}-{suffix}"

    def save(self, suite, variants, **extra):
        self.suites[suite] = dict({"variants": [v.record() for v in variants]}, **extra)

    # ---------------------------------------------------------------------------------------------- suites

    def version(self):
        stdin = write(os.path.join(self.work, "version.json"), '{"cniVersion":"1.0.0"}')
        env = self.env(CNI_COMMAND="VERSION")
        noaot = self.env(CNI_COMMAND="VERSION", JCNI_JAVA_OPTS="-XX:AOTMode=off")
        hl = [Variant("go host-local VERSION", "go", [f"{self.go}/host-local"], env, stdin, has_versions),
              Variant("jcni host-local VERSION", "jcni", [f"{self.dist}/host-local"], env, stdin, has_versions)]
        br = [Variant("go bridge VERSION", "go", [f"{self.go}/bridge"], env, stdin, has_versions),
              Variant("jcni bridge VERSION", "jcni", [f"{self.dist}/bridge"], env, stdin, has_versions)]
        off = Variant("jcni host-local VERSION, AOT cache off", "jcni", [f"{self.dist}/host-local"], noaot, stdin,
                      has_versions)
        steps = [(hl[0], hl[1], off), tuple(br)]
        self.rounds("version", steps, self.a.n, self.a.warmup)
        self.save("version", hl + br + [off], hyperfine=self.hyperfine())

    def rounds(self, suite, steps, rounds, warmup):
        self.log(f"{suite}: {warmup} warm-up + {rounds} rounds")
        interleave(steps, rounds, warmup, self.work, self.progress(suite))

    def hyperfine(self):
        """A cross-check of the runner with another tool: hyperfine -N on the same two VERSION execs (stdin is
        /dev/null there; both plugins answer VERSION without reading it)."""
        if not shutil.which("hyperfine"):
            return None
        out = os.path.join(self.work, "hyperfine.json")
        commands = [f"{self.go}/host-local", f"{self.dist}/host-local"]
        p = subprocess.run(["hyperfine", "-N", "-w", "5", "-r", str(max(self.a.n, 10)), "--export-json", out]
                           + commands, env=self.env(CNI_COMMAND="VERSION"), capture_output=True, text=True)
        if p.returncode != 0:
            raise ExecFailed(f"hyperfine failed ({p.returncode}): {p.stderr}")
        with open(out) as f:
            results = json.load(f)["results"]
        return [{"side": side, "command": r["command"], "times_ms": [t * 1000 for t in r["times"]]}
                for side, r in zip(("go", "jcni"), results)]

    def host_local(self, suite, fill):
        """host-local ADD then DEL of one attachment per side per round, on a /16 holding `fill` reservations. With
        a fill, the same rounds also run both sides on an empty /16 (the "control" variants), so that growth with
        the fill is read from one set of rounds rather than across suites that ran under different load."""
        steps = [self.host_local_pair(suite, fill, "")]
        if fill:
            steps.append(self.host_local_pair(suite, 0, ", empty /16 (control)"))
        steps = [(go[0], jcni[0]) for go, jcni in steps] + [(go[1], jcni[1]) for go, jcni in steps]
        rounds = self.a.n_full if fill else self.a.n
        self.rounds(suite, steps, rounds, 1 if fill else self.a.warmup)
        self.save(suite, [v for pair in steps for v in pair], fill=fill, subnet_size=65536)

    def host_local_pair(self, suite, fill, suffix):
        """(Go's (ADD, DEL), jcni's (ADD, DEL)) on a /16 of their own each, prefilled with `fill` reservations."""
        subnet = {("go", True): "10.201", ("jcni", True): "10.202", ("go", False): "10.203", ("jcni", False): "10.204"}
        pairs = []
        for side, exe in (("go", self.go), ("jcni", self.dist)):
            prefix = subnet[(side, suffix == "")]
            data = os.path.join(self.work, f"{suite}-{side}-{prefix}")
            if fill:
                self.log(f"{suite}: writing {fill} reservations in Go's format for {side}")
                fill_reservations(os.path.join(data, "bench"), prefix, fill)
            conf = write(data + ".json", json.dumps(
                {"cniVersion": "1.0.0", "name": "bench", "type": "bridge",
                 "ipam": {"type": "host-local", "dataDir": data, "ranges": [[{"subnet": f"{prefix}.0.0/16"}]]}}))
            base = dict(CNI_CONTAINERID=f"bench-{side}", CNI_NETNS=self.netns("absent"), CNI_IFNAME="eth0",
                        CNI_PATH=exe)
            add = Variant(f"{side} host-local ADD{suffix}", side, [f"{exe}/host-local"],
                          self.env(CNI_COMMAND="ADD", **base), conf, has_ip)
            delete = Variant(f"{side} host-local DEL{suffix}", side, [f"{exe}/host-local"],
                             self.env(CNI_COMMAND="DEL", **base), conf)
            # One untimed DEL: jcni builds its index of a data directory it has not seen (once per directory).
            delete.run(self.work, True)
            delete.samples.clear()
            pairs.append((add, delete))
        return tuple(pairs)

    def cluster_ipam(self, suite):
        """jcni's cluster-ipam ADD then DEL against one etcd member started here (Debian's etcd-server, data on the
        run's tmpfs work dir, loopback of the bench host namespace), paired with Go's host-local ADD then DEL on an
        empty /16 as the anchor: Go has no etcd IPAM, so the ratio says what the cluster store costs over a node-local
        one, not jcni against Go."""
        etcd = shutil.which("etcd")
        if not etcd:
            raise ExecFailed("cluster-ipam: etcd is not installed (scripts/setup installs etcd-server)")
        port = 23000 + os.getpid() % 2000
        data = os.path.join(self.work, "etcd")
        log = open(os.path.join(self.work, "etcd.log"), "w")
        proc = subprocess.Popen([etcd, "--name", "bench", "--data-dir", data,
                                 "--listen-client-urls", f"http://127.0.0.1:{port}",
                                 "--advertise-client-urls", f"http://127.0.0.1:{port}",
                                 "--listen-peer-urls", f"http://127.0.0.1:{port + 1}",
                                 "--initial-advertise-peer-urls", f"http://127.0.0.1:{port + 1}",
                                 "--initial-cluster", f"bench=http://127.0.0.1:{port + 1}", "--log-level", "error"],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.time() + 30
            while subprocess.run(["curl", "-sf", "-m", "1", "-X", "POST", "-d", '{"key":"AA=="}',
                                  f"http://127.0.0.1:{port}/v3/kv/range"], capture_output=True).returncode != 0:
                if time.time() > deadline or proc.poll() is not None:
                    raise ExecFailed(f"cluster-ipam: etcd did not start (log in {log.name})")
                time.sleep(0.1)
            steps = []
            for side, exe, plugin, ipam in (
                    ("go", self.go, "host-local", {"type": "host-local", "dataDir": os.path.join(self.work, "cl-go"),
                                                   "ranges": [[{"subnet": "10.205.0.0/16"}]]}),
                    ("jcni", self.dist, "cluster-ipam", {"type": "cluster-ipam", "nodeName": "bench",
                                                         "ranges": [[{"subnet": "10.206.0.0/16"}]],
                                                         "etcd": {"endpoints": [f"http://127.0.0.1:{port}"]}})):
                conf = write(os.path.join(self.work, f"{suite}-{side}.json"), json.dumps(
                    {"cniVersion": "1.0.0", "name": "bench", "type": "bridge", "ipam": ipam}))
                base = dict(CNI_CONTAINERID=f"bench-{side}", CNI_NETNS=self.netns("absent"), CNI_IFNAME="eth0",
                            CNI_PATH=exe)
                steps.append((Variant(f"{side} {plugin} ADD", side, [f"{exe}/{plugin}"],
                                      self.env(CNI_COMMAND="ADD", **base), conf, has_ip, phases=side == "jcni"),
                              Variant(f"{side} {plugin} DEL", side, [f"{exe}/{plugin}"],
                                      self.env(CNI_COMMAND="DEL", **base), conf)))
            steps = [(steps[0][0], steps[1][0]), (steps[0][1], steps[1][1])]
            self.rounds(suite, steps, self.a.n, self.a.warmup)
            self.save(suite, [v for pair in steps for v in pair], etcd_members=1)
        finally:
            proc.kill()
            proc.wait()
            log.close()

    def interface(self, suite, plugin, ipam_type):
        """bridge or ptp with host-local (or static) IPAM, ADD then DEL of one attachment per side per round."""
        variants = {}
        for i, side in enumerate(("go", "jcni")):
            exe = self.go if side == "go" else self.dist
            subnet = f"10.{SUBNETS[suite]}.{i + 1}"
            if ipam_type == "static":
                ipam = {"type": "static", "addresses": [{"address": f"{subnet}.5/24", "gateway": f"{subnet}.1"}],
                        "routes": [{"dst": "0.0.0.0/0"}]}
            else:
                ipam = {"type": "host-local", "dataDir": os.path.join(self.work, f"{suite}-{side}-ipam"),
                        "ranges": [[{"subnet": f"{subnet}.0/24"}]], "routes": [{"dst": "0.0.0.0/0"}]}
            conf = {"cniVersion": "1.0.0", "name": f"{suite}-{side}", "type": plugin, "ipam": ipam}
            ns = NAMESPACES[suite][i]
            if plugin == "bridge":
                conf.update({"bridge": ns, "isGateway": True})  # in the bench host namespace, as everything here
            path = write(os.path.join(self.work, f"{suite}-{side}.json"), json.dumps(conf))
            base = dict(CNI_CONTAINERID=f"bench-{side}", CNI_NETNS=self.netns(ns), CNI_IFNAME="eth0",
                        CNI_PATH=exe, JCNI_DEBUG="1" if side == "jcni" else None)
            variants[side] = (
                Variant(f"{side} {plugin} ADD", side, [f"{exe}/{plugin}"], self.env(CNI_COMMAND="ADD", **base), path,
                        has_ip, phases=side == "jcni"),
                Variant(f"{side} {plugin} DEL", side, [f"{exe}/{plugin}"], self.env(CNI_COMMAND="DEL", **base), path,
                        phases=side == "jcni"))
        steps = [(variants["go"][0], variants["jcni"][0]), (variants["go"][1], variants["jcni"][1])]
        self.rounds(suite, steps, self.a.n, self.a.warmup)
        self.save(suite, [v for pair in steps for v in pair], plugin=plugin, ipam=ipam_type)

    def chain(self):
        """bridge (host-local) -> tuning, run by jcni's runtime CLI: once with Go's plugins, once with jcni's."""
        def tuning(side):
            return {"type": "tuning", "mtu": 1400, "sysctl": {"net.core.somaxconn": "512"},
                    "dataDir": os.path.join(self.work, f"chain-{side}-tuning")}
        self.runtime_chain("chain", "chain", 220, tuning, "")

    def bandwidth(self):
        """bridge (host-local) -> bandwidth (8 Mbit/s each way: a tbf on the host end, an ifb with its own tbf), run
        by jcni's runtime CLI: once with Go's plugins, once with jcni's. DEL removes the ifb (and the bridge's DEL the
        veth with its qdiscs), so every round starts from the same state."""
        def bandwidth(side):
            return {"type": "bandwidth", "ingressRate": 8000000, "ingressBurst": 80000, "egressRate": 8000000,
                    "egressBurst": 80000}
        self.runtime_chain("bandwidth", "bw", 221, bandwidth, "bandwidth ")

    def runtime_chain(self, suite, prefix, octet, second, what):
        """A bridge (host-local) -> `second` list run by jcni's runtime CLI, with Go's plugins and with jcni's."""
        confdir = os.path.join(self.work, "netconf")
        os.makedirs(confdir, exist_ok=True)
        variants = {}
        for i, side in enumerate(("go", "jcni")):
            name = f"{prefix}-{side}"
            write(os.path.join(confdir, f"{name}.conflist"), json.dumps({
                "cniVersion": "1.0.0", "name": name, "plugins": [
                    {"type": "bridge", "bridge": f"{prefix}-{side}", "isGateway": True,
                     "ipam": {"type": "host-local", "dataDir": os.path.join(self.work, f"{prefix}-{side}-ipam"),
                              "ranges": [[{"subnet": f"10.{octet}.{i + 1}.0/24"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
                    second(side)]}))
            plugins = self.go if side == "go" else self.dist
            argv = [self.jcni_cli, "--conf-dir", confdir, "--cache-dir", os.path.join(self.work, "cache"),
                    "--cni-path", plugins, "--container-id", f"bench-{side}"]
            env = self.env()
            empty = write(os.path.join(self.work, "empty"), "")
            ns = self.netns(NAMESPACES[suite][i])
            variants[side] = (
                Variant(f"jcni runtime, {side} plugins: {what}ADD", side, argv + ["add", name, ns], env, empty,
                        has_ip),
                Variant(f"jcni runtime, {side} plugins: {what}DEL", side, argv + ["del", name, ns], env, empty))
        steps = [(variants["go"][0], variants["jcni"][0]), (variants["go"][1], variants["jcni"][1])]
        self.rounds(suite, steps, self.a.n, self.a.warmup)
        self.save(suite, [v for pair in steps for v in pair])

    def netfilter(self):
        """bridge (ipMasq, hairpin, host-local) -> tuning -> portmap with two published ports (issue 13's chain), run
        by jcni's runtime CLI with Go's plugins and with jcni's. Go's 1.1.1 write iptables rules (iptables-nft here),
        jcni's nftables over netlink. jcni's side runs with JCNI_DEBUG=1: each plugin's handler time is read from the
        timing lines the runtime passes through, so the report can tell the plugins' work from the JVM starts."""
        confdir = os.path.join(self.work, "netconf-nf")
        os.makedirs(confdir, exist_ok=True)
        caps = json.dumps({"portMappings": [{"hostPort": 8080, "containerPort": 80, "protocol": "tcp"},
                                            {"hostPort": 5353, "containerPort": 53, "protocol": "udp"}]})
        variants = {}
        for i, side in enumerate(("go", "jcni")):
            name = f"chain-nf-{side}"
            write(os.path.join(confdir, f"{name}.conflist"), json.dumps({
                "cniVersion": "1.0.0", "name": name, "plugins": [
                    {"type": "bridge", "bridge": f"chain-pm-{side}", "isGateway": True, "ipMasq": True,
                     "hairpinMode": True,
                     "ipam": {"type": "host-local", "dataDir": os.path.join(self.work, f"{name}-ipam"),
                              "ranges": [[{"subnet": f"10.220.{i + 3}.0/24"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
                    {"type": "tuning", "mtu": 1400, "sysctl": {"net.core.somaxconn": "512"},
                     "dataDir": os.path.join(self.work, f"{name}-tuning")},
                    {"type": "portmap", "capabilities": {"portMappings": True}}]}))
            plugins = self.go if side == "go" else self.dist
            argv = [self.jcni_cli, "--conf-dir", confdir, "--cache-dir", os.path.join(self.work, "cache-nf"),
                    "--cni-path", plugins, "--container-id", f"bench-nf-{side}"]
            env = self.env(CAP_ARGS=caps, JCNI_DEBUG="1" if side == "jcni" else None)
            empty = write(os.path.join(self.work, "empty"), "")
            ns = self.netns(NAMESPACES["netfilter"][i])
            handlers = ("bridge", "tuning", "portmap") if side == "jcni" else ()
            variants[side] = (
                Variant(f"jcni runtime, {side} plugins: netfilter chain ADD", side, argv + ["add", name, ns], env,
                        empty, has_ip, handlers=handlers),
                Variant(f"jcni runtime, {side} plugins: netfilter chain DEL", side, argv + ["del", name, ns], env,
                        empty, handlers=handlers))
        steps = [(variants["go"][0], variants["jcni"][0]), (variants["go"][1], variants["jcni"][1])]
        self.rounds("netfilter", steps, self.a.n, self.a.warmup)
        self.save("netfilter", [v for pair in steps for v in pair], jvms=4)

    def runtime(self):
        """Runtime exec overhead: Go libcni vs jcni's CniRuntime execing the same trivial Go plugin."""
        bin_dir = self.a.go_bin
        cache_go = os.path.join(self.work, "rt-cache-go")
        cache_jcni = os.path.join(self.work, "rt-cache-jcni")
        conf = write(os.path.join(self.work, "trivial.conflist"), json.dumps(
            {"cniVersion": "1.0.0", "name": "bench-trivial", "plugins": [{"type": "trivial-plugin"}]}))
        netns = self.netns("absent")  # the trivial plugin never opens it
        java = subprocess.Popen(
            [self.a.java, "--enable-native-access=ALL-UNNAMED", "-cp", self.a.jar,
             "io.jcni.benchmarks.runtime.ExecLoop", bin_dir, cache_jcni, conf, netns], env=self.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, bufsize=1)

        def jcni_block(variant, count):
            java.stdin.write(f"{variant} {count}\n")
            java.stdin.flush()
            line = java.stdout.readline()
            if not line or line.startswith("error"):
                raise ExecFailed(f"ExecLoop {variant}: {line.strip() or 'exited'}")
            return [int(t) / 1e6 for t in line.split()]

        def go_block(command, level, count):
            argv = [os.path.join(bin_dir, "libcni-driver"), "bench-exec", "--plugin", "trivial-plugin", "--n",
                    str(count), "--warmup", "3", "--command", command, "--level", level, "--cni-path", bin_dir]
            if command == "ADD":
                argv += ["--conf", conf, "--netns", netns, "--cache-dir", cache_go, "--container-id",
                         "jcni-bench-exec"]
            p = subprocess.run(argv, env=self.env(), capture_output=True, text=True)
            if p.returncode != 0:
                raise ExecFailed(f"libcni-driver bench-exec {command}: {p.stdout} {p.stderr}")
            return [t / 1e6 for t in json.loads(p.stdout)["durationsNs"]]

        rows = {
            "go version": lambda c: go_block("VERSION", "invoke", c),
            "jcni version": lambda c: jcni_block("version", c),
            "jcni version-helper": lambda c: jcni_block("version-helper", c),
            "go add": lambda c: go_block("ADD", "libcni", c),
            "jcni add": lambda c: jcni_block("add", c),
        }
        samples = {k: [] for k in rows}
        block = self.a.block
        blocks = max(2, -(-self.a.n * self.a.runtime_factor // block))
        self.log(f"runtime: 1 warm-up + {blocks} blocks of {block} calls per variant")
        progress = self.progress("runtime")
        try:
            for k in rows:  # warm-up: page cache, and the JVM's JIT on the jcni side
                for t in rows[k](block if k.startswith("go") else max(block, 100)):
                    samples[k].append({"wall_ms": t, "warmup": True})
            for b in range(blocks):
                keys = list(rows) if b % 2 == 0 else list(reversed(rows))
                for k in keys:
                    samples[k].extend({"wall_ms": t, "warmup": False} for t in rows[k](block))
                progress(b + 1, blocks)
        finally:
            java.stdin.close()
            java.wait(timeout=30)
        self.suites["runtime"] = {"block": block, "variants": [
            {"name": k, "side": k.split()[0], "samples": v} for k, v in samples.items()]}

    def run(self, suites):
        started = time.time()
        for suite in suites:
            if suite == "version":
                self.version()
            elif suite == "host-local":
                self.host_local(suite, 0)
            elif suite == "host-local-90":
                self.host_local(suite, 58982)  # 90 % of the 65534 addresses of a /16 but the gateway
            elif suite == "bridge":
                self.interface(suite, "bridge", "host-local")
            elif suite == "bridge-static":
                self.interface(suite, "bridge", "static")
            elif suite == "ptp":
                self.interface(suite, "ptp", "host-local")
            elif suite == "cluster-ipam":
                self.cluster_ipam(suite)
            elif suite == "chain":
                self.chain()
            elif suite == "netfilter":
                self.netfilter()
            elif suite == "bandwidth":
                self.bandwidth()
            elif suite == "runtime":
                self.runtime()
        return {"started": started, "finished": time.time(), "n": self.a.n, "n_full": self.a.n_full,
                "warmup": self.a.warmup, "suites": self.suites}


def fill_reservations(directory, prefix, count):
    """Writes count reservations of <prefix>.0.0/16 in Go host-local's format (a file per address holding
    "<containerID>\\r\\n<ifname>", and last_reserved_ip.0), skipping the gateway .0.1 and the .0 and .255 hosts."""
    os.makedirs(directory, exist_ok=True)
    written, n, last = 0, 2, None
    while written < count:
        third, fourth = divmod(n, 256)
        n += 1
        if fourth == 0 or fourth == 255:
            continue
        last = f"{prefix}.{third}.{fourth}"
        with open(os.path.join(directory, last), "w") as f:
            f.write(f"fill-{written}\r\neth0")
        written += 1
    with open(os.path.join(directory, "last_reserved_ip.0"), "w") as f:
        f.write(last)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    ns = sub.add_parser("namespaces")
    ns.add_argument("--suites", default=",".join(DEFAULT_SUITES))
    run = sub.add_parser("run")
    run.add_argument("--out", required=True)
    run.add_argument("--suites", default=",".join(DEFAULT_SUITES))
    run.add_argument("--tag", required=True, help="namespace prefix; containers are <tag>-<suffix>")
    run.add_argument("--work", required=True, help="scratch directory (data dirs, configs, cache)")
    run.add_argument("--dist", required=True)
    run.add_argument("--go-plugins", default="/usr/lib/cni")
    run.add_argument("--go-bin", required=True, help="directory of libcni-driver and trivial-plugin")
    run.add_argument("--java", required=True)
    run.add_argument("--jar", required=True, help="benchmarks.jar (ExecLoop)")
    run.add_argument("--n", type=int, default=40, help="measured rounds per exec suite")
    run.add_argument("--n-full", type=int, default=10, help="measured rounds at 90 %% of a /16")
    run.add_argument("--warmup", type=int, default=3, help="warm-up rounds (not counted)")
    run.add_argument("--block", type=int, default=20, help="runtime suite: calls per block")
    run.add_argument("--runtime-factor", type=int, default=5, help="runtime suite: calls per variant = n x this")
    a = p.parse_args()
    suites = a.suites.split(",")
    unknown = [s for s in suites if s not in ALL_SUITES]
    if unknown:
        raise SystemExit(f"unknown suite(s) {unknown}; known: {','.join(ALL_SUITES)}")
    if a.cmd == "namespaces":
        for s in suites:
            for suffix in NAMESPACES.get(s, []):
                print(suffix)
        return
    try:
        results = Measure(a).run(suites)
    except ExecFailed as e:
        print(f"measure: an exec failed, stopping:\n{e}", file=sys.stderr)
        sys.exit(1)
    with open(a.out, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
