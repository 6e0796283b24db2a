#!/usr/bin/env python3
"""The measuring half of benchmarks/compare.sh: execs Go's and jcni's plugins (and runtimes) interleaved, and writes
every raw sample to a JSON file. Statistics, targets and the report are report.py's business; nothing here judges.

    measure.py namespaces --suites LIST          the container namespaces the suites need (suffixes, one a line)
    measure.py run --out FILE [options]          measure; run it inside the bench "host" namespace (ip netns exec)

How one exec is timed (suites version, host-local, host-local-90, bridge, chain, ptp, bridge-static): posix_spawn of
the executable with the environment and stdin a runtime gives a plugin (stdout and stderr to files), then wait4; wall
time from just before the spawn to the reaped exit, CPU time (user + system) and peak RSS (ru_maxrss: the largest
process of the exec's tree, e.g. a plugin and the IPAM plugin it execs) from the child's rusage. A failed exec (exit
status other than 0, or an ADD that prints no IP) stops the run: timing a failure would be meaningless.

Three sides: Go's plugins, jcni's plugins exec'd as without a service (dist/cni/bin with JCNI_SERVICE_SOCKET=off:
the client runs its JVM launcher), and jcni's plugins through the plugin service ("svc": the same clients, with a
`jcni serve` started here, in the bench host namespace, on a socket in the work directory).

Interleaving: every round runs each variant of a suite once, the sides alternating which goes first, so that
background load (this machine is shared) hits all alike; the first rounds are warm-up and are recorded as such
(report.py drops them).

The service suite runs first: 10,000 bridge + host-local ADD/DEL pairs through the service (--service-calls), its RSS
sampled along the way; that is also the service's warm-up (a node's service runs for days; its JIT has compiled the
plugins' code long since). Then the client's peak RSS, read by rss-probe (a small static program that forks and
execs the client: Python's own spawn would count the interpreter's memory into the child's ru_maxrss). The runtime suite alternates blocks instead: a block of Go libcni calls (libcni-driver
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

# suite -> the container namespaces it needs (compare.sh creates <tag>-<suffix> before entering the host namespace:
# a namespace created from inside `ip netns exec` would be mounted in that mount namespace only).
NAMESPACES = {
    "bridge": ["bridge-go", "bridge-jcni", "bridge-svc"],
    "bridge-static": ["bstatic-go", "bstatic-jcni", "bstatic-svc"],
    "ptp": ["ptp-go", "ptp-jcni", "ptp-svc"],
    "chain": ["chain-go", "chain-jcni", "chain-svc"],
    "service": ["svc-rss"],
}
SIDES = ("go", "jcni", "svc")
# Second octet of each suite's subnets: bridges and ptp's host ends all live in the one bench host namespace.
SUBNETS = {"bridge": 211, "bridge-static": 212, "ptp": 213}
DEFAULT_SUITES = ["service", "version", "host-local", "host-local-90", "bridge", "chain", "runtime"]
ALL_SUITES = DEFAULT_SUITES + ["ptp", "bridge-static"]


class ExecFailed(Exception):
    pass


class Variant:
    """One command of a suite, e.g. Go's bridge ADD: argv, environment, stdin file, and its samples."""

    def __init__(self, name, side, argv, env, stdin, check=None, phases=False):
        self.name, self.side, self.argv, self.env, self.stdin = name, side, argv, env, stdin
        self.check = check
        self.phases = phases
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
        self.socket = os.path.join(self.work, "service", "plugins.sock")
        self.service = None

    # ---------------------------------------------------------------------------------------------- the service

    def start_service(self):
        os.makedirs(os.path.dirname(self.socket), mode=0o700, exist_ok=True)
        log = open(os.path.join(self.work, "service.log"), "w")
        self.service = subprocess.Popen([self.jcni_cli, "serve", "--socket", self.socket], env=self.env(),
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.monotonic() + 120
        while not os.path.exists(self.socket):
            if self.service.poll() is not None or time.monotonic() > deadline:
                raise ExecFailed(f"jcni serve did not start: {self.service_log()}")
            time.sleep(0.05)
        self.log(f"service: pid {self.service.pid} on {self.socket}")

    def stop_service(self):
        if self.service and self.service.poll() is None:
            self.service.terminate()
            self.service.wait(timeout=60)

    def service_log(self):
        with open(os.path.join(self.work, "service.log")) as f:
            return f.read()

    def service_memory(self):
        """VmRSS and VmHWM of the service, KiB."""
        values = {}
        with open(f"/proc/{self.service.pid}/status") as f:
            for line in f:
                key = line.split(":")[0]
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(line.split()[1])
        return values

    def side_env(self, side, **extra):
        """A plugin's environment on one side: jcni's clients without a service run their JVM launcher; with one,
        ask it."""
        if side == "jcni":
            extra["JCNI_SERVICE_SOCKET"] = "off"
        elif side == "svc":
            extra["JCNI_SERVICE_SOCKET"] = self.socket
        return self.env(**extra)

    def plugins(self, side):
        return self.go if side == "go" else self.dist

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
        noaot = self.side_env("jcni", CNI_COMMAND="VERSION", JCNI_JAVA_OPTS="-XX:AOTMode=off")
        names = {"go": "go", "jcni": "jcni", "svc": "svc"}
        hl = [Variant(f"{names[side]} host-local VERSION", side, [f"{self.plugins(side)}/host-local"],
                      self.side_env(side, CNI_COMMAND="VERSION"), stdin, has_versions) for side in SIDES]
        br = [Variant(f"{names[side]} bridge VERSION", side, [f"{self.plugins(side)}/bridge"],
                      self.side_env(side, CNI_COMMAND="VERSION"), stdin, has_versions) for side in SIDES]
        off = Variant("jcni host-local VERSION, AOT cache off", "jcni", [f"{self.dist}/host-local"], noaot, stdin,
                      has_versions)
        steps = [tuple(hl) + (off,), tuple(br)]
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
                           + commands, env=self.side_env("jcni", CNI_COMMAND="VERSION"), capture_output=True,
                           text=True)
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
        steps = [tuple(side[0] for side in s) for s in steps] + [tuple(side[1] for side in s) for s in steps]
        rounds = self.a.n_full if fill else self.a.n
        self.rounds(suite, steps, rounds, 1 if fill else self.a.warmup)
        self.save(suite, [v for pair in steps for v in pair], fill=fill, subnet_size=65536)

    def host_local_pair(self, suite, fill, suffix):
        """((ADD, DEL) per side) on a /16 of their own each, prefilled with `fill` reservations."""
        subnet = {("go", True): "10.201", ("jcni", True): "10.202", ("go", False): "10.203", ("jcni", False): "10.204",
                  ("svc", True): "10.205", ("svc", False): "10.206"}
        pairs = []
        for side in SIDES:
            exe = self.plugins(side)
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
                          self.side_env(side, CNI_COMMAND="ADD", **base), conf, has_ip)
            delete = Variant(f"{side} host-local DEL{suffix}", side, [f"{exe}/host-local"],
                             self.side_env(side, CNI_COMMAND="DEL", **base), conf)
            # One untimed DEL: jcni builds its index of a data directory it has not seen (once per directory).
            delete.run(self.work, True)
            delete.samples.clear()
            pairs.append((add, delete))
        return tuple(pairs)

    def interface(self, suite, plugin, ipam_type):
        """bridge or ptp with host-local (or static) IPAM, ADD then DEL of one attachment per side per round."""
        variants = {}
        for i, side in enumerate(SIDES):
            exe = self.plugins(side)
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
                        CNI_PATH=exe, JCNI_DEBUG="1" if side != "go" else None)
            variants[side] = (
                Variant(f"{side} {plugin} ADD", side, [f"{exe}/{plugin}"], self.side_env(side, CNI_COMMAND="ADD",
                                                                                          **base), path,
                        has_ip, phases=side != "go"),
                Variant(f"{side} {plugin} DEL", side, [f"{exe}/{plugin}"], self.side_env(side, CNI_COMMAND="DEL",
                                                                                          **base), path,
                        phases=side != "go"))
        steps = [tuple(variants[side][0] for side in SIDES), tuple(variants[side][1] for side in SIDES)]
        self.rounds(suite, steps, self.a.n, self.a.warmup)
        self.save(suite, [v for pair in steps for v in pair], plugin=plugin, ipam=ipam_type)

    def chain(self):
        """bridge (host-local) -> tuning, run by jcni's runtime CLI: with Go's plugins, with jcni's, and with jcni's
        through the service."""
        confdir = os.path.join(self.work, "netconf")
        os.makedirs(confdir, exist_ok=True)
        variants = {}
        labels = {"go": "go plugins", "jcni": "jcni plugins", "svc": "jcni plugins via service"}
        for i, side in enumerate(SIDES):
            name = f"chain-{side}"
            write(os.path.join(confdir, f"{name}.conflist"), json.dumps({
                "cniVersion": "1.0.0", "name": name, "plugins": [
                    {"type": "bridge", "bridge": f"chain-{side}", "isGateway": True,
                     "ipam": {"type": "host-local", "dataDir": os.path.join(self.work, f"chain-{side}-ipam"),
                              "ranges": [[{"subnet": f"10.220.{i + 1}.0/24"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
                    {"type": "tuning", "mtu": 1400, "sysctl": {"net.core.somaxconn": "512"},
                     "dataDir": os.path.join(self.work, f"chain-{side}-tuning")}]}))
            plugins = self.plugins(side)
            argv = [self.jcni_cli, "--conf-dir", confdir, "--cache-dir", os.path.join(self.work, "cache"),
                    "--cni-path", plugins, "--container-id", f"bench-{side}"]
            env = self.side_env(side)
            empty = write(os.path.join(self.work, "empty"), "")
            ns = self.netns(NAMESPACES["chain"][i])
            variants[side] = (
                Variant(f"jcni runtime, {labels[side]}: ADD", side, argv + ["add", name, ns], env, empty, has_ip),
                Variant(f"jcni runtime, {labels[side]}: DEL", side, argv + ["del", name, ns], env, empty))
        steps = [tuple(variants[side][0] for side in SIDES), tuple(variants[side][1] for side in SIDES)]
        self.rounds("chain", steps, self.a.n, self.a.warmup)
        self.save("chain", [v for pair in steps for v in pair])

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
             "io.jcni.benchmarks.runtime.ExecLoop", bin_dir, cache_jcni, conf, netns,
             os.path.join(self.a.dist, "libexec", "jcni-launch-helper")], env=self.env(), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, bufsize=1)

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
            "jcni version-native-helper": lambda c: jcni_block("version-native-helper", c),
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

    def service_suite(self):
        """The service's RSS over --service-calls bridge + host-local ADD/DEL pairs through it (its warm-up too), then
        the client's peak RSS (rss-probe) for VERSION and bridge ADD/DEL through the service."""
        ns = self.netns(NAMESPACES["service"][0])
        conf = write(os.path.join(self.work, "svc-rss.json"), json.dumps(
            {"cniVersion": "1.0.0", "name": "svc-rss", "type": "bridge", "bridge": "svc-rss", "isGateway": True,
             "ipam": {"type": "host-local", "dataDir": os.path.join(self.work, "svc-rss-ipam"),
                      "ranges": [[{"subnet": "10.211.9.0/24"}]], "routes": [{"dst": "0.0.0.0/0"}]}}))
        base = dict(CNI_CONTAINERID="bench-svc-rss", CNI_NETNS=ns, CNI_IFNAME="eth0", CNI_PATH=self.dist)
        add = Variant("svc bridge ADD (RSS run)", "svc", [f"{self.dist}/bridge"],
                      self.side_env("svc", CNI_COMMAND="ADD", **base), conf, has_ip)
        delete = Variant("svc bridge DEL (RSS run)", "svc", [f"{self.dist}/bridge"],
                         self.side_env("svc", CNI_COMMAND="DEL", **base), conf)
        version = Variant("svc bridge VERSION (RSS run)", "svc", [f"{self.dist}/bridge"],
                          self.side_env("svc", CNI_COMMAND="VERSION"),
                          write(os.path.join(self.work, "version.json"), '{"cniVersion":"1.0.0"}'), has_versions)
        version.run(self.work, True)
        memory = [dict(self.service_memory(), calls=0, seconds=0.0)]
        calls = self.a.service_calls
        self.log(f"service: {calls} bridge + host-local ADD/DEL pairs through the service (its RSS sampled)")
        progress = self.progress("service")
        started = time.monotonic()
        step = max(1, calls // 20)
        for i in range(calls):
            add.run(self.work, True)
            delete.run(self.work, True)
            if (i + 1) % step == 0 or i + 1 == calls:
                memory.append(dict(self.service_memory(), calls=i + 1, seconds=time.monotonic() - started))
                progress(i + 1, calls)
        pairs = [{"add_ms": a["wall_ms"], "del_ms": d["wall_ms"]} for a, d in zip(add.samples, delete.samples)]
        client = {}
        probe = self.a.rss_probe
        for name, variant in (("VERSION", version), ("ADD", add), ("DEL", delete)):
            client[name] = []
        for _ in range(max(10, self.a.n // 2)):
            for name, variant in (("VERSION", version), ("ADD", add), ("DEL", delete)):
                client[name].append(probed_rss(probe, variant, self.work))
        self.suites["service"] = {"calls": calls, "memory": memory, "client_rss_kb": client,
                                  "pairs_ms": pairs[:: max(1, len(pairs) // 2000)]}

    def run(self, suites):
        started = time.time()
        self.start_service()
        try:
            self.run_suites(suites)
        finally:
            self.stop_service()
        return {"started": started, "finished": time.time(), "n": self.a.n, "n_full": self.a.n_full,
                "warmup": self.a.warmup, "suites": self.suites, "service_log": self.service_log()}

    def run_suites(self, suites):
        for suite in suites:
            if suite == "service":
                self.service_suite()
            elif suite == "version":
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
            elif suite == "chain":
                self.chain()
            elif suite == "runtime":
                self.runtime()


def probed_rss(probe, variant, work):
    """The peak RSS (KiB) of one exec of `variant`, run under rss-probe."""
    err_path = os.path.join(work, "probe.err")
    with open(variant.stdin) as stdin, open(os.path.join(work, "probe.out"), "w") as out, \
            open(err_path, "w") as err:
        code = subprocess.call([probe] + variant.argv, env=variant.env, stdin=stdin, stdout=out, stderr=err)
    with open(err_path) as f:
        text = f.read()
    m = re.search(r"rss-probe maxrss_kb (\d+)", text)
    if code != 0 or not m:
        raise ExecFailed(f"rss-probe {variant.name}: exit {code}: {text[-2000:]}")
    return int(m.group(1))


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
    run.add_argument("--service-calls", type=int, default=10000,
                     help="service suite: bridge ADD/DEL pairs through the service while its RSS is sampled")
    run.add_argument("--rss-probe", required=True, help="the rss-probe binary (compare.sh builds it)")
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
