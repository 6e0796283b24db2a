#!/usr/bin/env python3
"""The measuring half of benchmarks/compare.sh: execs Go's and jcni's plugins (and runtimes) interleaved, and writes
every raw sample to a JSON file. Statistics, targets and the report are report.py's business; nothing here judges.

    measure.py namespaces --suites LIST          the container namespaces the suites need (suffixes, one a line)
    measure.py run --out FILE [options]          measure; run it inside the bench "host" namespace (ip netns exec)

How one exec is timed (every suite but runtime and service): posix_spawn of the executable with the environment and
stdin a runtime gives a plugin (stdout and stderr to files), then wait4; wall time from just before the spawn to the
reaped exit, CPU time (user + system) and peak RSS (ru_maxrss: the largest process of the exec's tree, e.g. a plugin
and the IPAM plugin it execs) from the child's rusage. A failed exec (exit status other than 0, or an ADD that prints
no IP) stops the run: timing a failure would be meaningless.

Three sides: Go's plugins, jcni's plugins exec'd as without a service (dist/cni/bin with JCNI_SERVICE_SOCKET=off:
the client runs its JVM launcher), and jcni's plugins through the plugin service ("svc": the same clients, with a
`jcni serve` started here, in the bench host namespace, on a socket in the work directory). A client that finds no
service falls back to its JVM launcher without a word, so the svc side is checked, not assumed: the service logs
every call it runs (it is started with JCNI_DEBUG=1), and after each suite the calls it logged must be exactly the
calls the suite's svc execs make (one per plugin exec'd; a chain's exec makes one per plugin of the chain); where jcni
runs with JCNI_DEBUG=1 (the interface, chain and cluster-ipam suites), every exec's debug line must also say how the
plugin ran ("<type>: ADD via service, pid N" on the svc side, "... exec, pid N" on the plain one).

Suites: service (below), version, host-local and host-local-90 (exec'd IPAM on a /16), bridge (bridge + host-local),
chain (bridge -> tuning), netfilter (bridge with ipMasq and hairpin -> tuning -> portmap with two published ports:
issue 13), bandwidth (bridge -> bandwidth: issue 15), runtime, cluster-ipam (issue 17), containerd (containerd's CRI
starting and removing pods, one containerd per side: issue 22; bench/containerd.py), and the extras ptp and
bridge-static. The three chains are run by jcni's runtime CLI (dist/bin/jcni add/del) with each side's plugins (the
runtime's JVM is the same on every side), one helper for all (runtime_chain); their jcni sides run with JCNI_DEBUG=1,
and the runtime passes each plugin's timing line through, so the report splits the plugins' handler time from the
rest (JVM starts, the clients, decoding). cluster-ipam execs jcni's etcd IPAM against one etcd member started here,
in the bench host namespace, with Go's host-local on an empty /16 as the anchor in the same rounds (Go has no etcd
IPAM: that ratio says what the cluster store costs over a node-local one).

Interleaving: every round runs each variant of a suite once, the sides alternating which goes first, so that
background load (this machine is shared) hits all alike; the first rounds are warm-up and are recorded as such
(report.py drops them).

The service suite runs first: 10,000 bridge + host-local ADD/DEL pairs through the service (--service-calls), its RSS
sampled along the way; that is also the service's warm-up (a node's service runs for days; its JIT has compiled the
plugins' code long since). Then the client's peak RSS, read by rss-probe (a small static program that forks and
execs the client: Python's own spawn would count the interpreter's memory into the child's ru_maxrss). The runtime
suite alternates blocks instead: a block of Go libcni calls (libcni-driver bench-exec, one process per block) and a
block of jcni runtime calls (ExecLoop, one long-lived JVM, as a Java runtime is), both execing the same trivial Go
plugin; the first block of each is warm-up.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import socket
import sys
import time
import urllib.request

PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
PHASE = re.compile(r"timing (ADD|DEL): (.*)")
PHASE_ITEM = re.compile(r"([\w+-]+) (\d+) us")
# A plugin's timing line as a runtime passes its stderr on: "<type>: timing ADD: ..., handler N us".
PLUGIN_HANDLER = re.compile(r"^([\w-]+): timing (?:ADD|DEL): .*handler (\d+) us", re.M)
# The skel's JCNI_DEBUG line saying how a plugin ran: "<type>: ADD via service, pid N" (or exec, in-process).
PLUGIN_MODE = re.compile(r"^([\w-]+): (?:ADD|DEL|CHECK|VERSION) (exec|via service|in-process), pid \d+$", re.M)
# The service's line per call (JCNI_DEBUG=1 in its environment): "jcni serve: ADD bridge for <peer>: status 0; ...".
SERVICE_CALL = re.compile(r"^jcni serve: ([A-Z]+) ([\w-]+) for .*: status (\d+)", re.M)
# The service's line when its own warm-up ended (logged at every level): "jcni serve: warm-up done (30 rounds): ...".
WARM_UP_END = re.compile(r"^jcni serve: warm-up (?:done|stopped).*$", re.M)
# How a jcni plugin says it ran, per side (JCNI_DEBUG=1).
MODES = {"jcni": "exec", "svc": "via service"}

# suite -> the container namespaces it needs (compare.sh creates <tag>-<suffix> before entering the host namespace:
# a namespace created from inside `ip netns exec` would be mounted in that mount namespace only).
NAMESPACES = {
    "bridge": ["bridge-go", "bridge-jcni", "bridge-svc"],
    "bridge-static": ["bstatic-go", "bstatic-jcni", "bstatic-svc"],
    "ptp": ["ptp-go", "ptp-jcni", "ptp-svc"],
    "chain": ["chain-go", "chain-jcni", "chain-svc"],
    "netfilter": ["chain-nf-go", "chain-nf-jcni", "chain-nf-svc"],
    "bandwidth": ["bw-go", "bw-jcni", "bw-svc"],
    "service": ["svc-rss"],
    "containerd": ["ctrd-go", "ctrd-jcni", "ctrd-svc"],
    "cold": ["cold-go", "cold-aot", "cold-noaot", "cold-nowarm", "cold-booted"],
    # burst: one namespace per pod, burst-<side>-<i>, as many as the largest burst (burst_namespaces).
}
# The burst suite's sizes (--burst-sizes) and its namespaces per side.
BURST_SIZES = (10, 40, 100)


def burst_namespaces(size):
    return [f"burst-{side}-{i}" for side in SIDES for i in range(size)]


SIDES = ("go", "jcni", "svc")
# Second octet of each suite's subnets: bridges and ptp's host ends all live in the one bench host namespace.
SUBNETS = {"bridge": 211, "bridge-static": 212, "ptp": 213, "chain": 220, "bandwidth": 221, "netfilter": 222,
           "cold": 214, "burst": 215}
DEFAULT_SUITES = ["service", "version", "host-local", "host-local-90", "bridge", "chain", "netfilter", "bandwidth",
                  "runtime", "cluster-ipam", "containerd", "cold", "burst"]
ALL_SUITES = DEFAULT_SUITES + ["ptp", "bridge-static"]


class ExecFailed(Exception):
    pass


class Variant:
    """One command of a suite, e.g. Go's bridge ADD: argv, environment, stdin file, and its samples."""

    def __init__(self, name, side, argv, env, stdin, check=None, phases=False, handlers=(), mode=None,
                 service_calls=()):
        """phases: read the plugin's own timing line (JCNI_DEBUG=1). handlers: plugin types whose timing lines a
        runtime passes through on stderr (a chain), each required. mode: how each jcni plugin of the exec must say it
        ran (MODES; JCNI_DEBUG=1), checked on every exec. service_calls: the (command, type) calls one exec makes
        through the service (svc side), counted against the service's log."""
        self.name, self.side, self.argv, self.env, self.stdin = name, side, argv, env, stdin
        self.check = check
        self.phases = phases
        self.handlers = handlers
        self.mode = mode
        self.service_calls = service_calls
        self.runs = 0  # every exec, timed or not
        self.samples = []  # {"wall_ms", "cpu_ms", "rss_kb", "warmup", "phases"?, "handlers"?}

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
        self.runs += 1
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
        if self.mode:
            self.check_mode(err)
        self.samples.append(sample)

    def check_mode(self, err):
        """Each jcni plugin of the exec (the handlers of a chain, else the first plugin that says how it ran: a
        delegate runs in-process) ran as this side must: exec'd in its own JVM, or through the service."""
        modes = PLUGIN_MODE.findall(err)
        if self.handlers:
            ran = {plugin: mode for plugin, mode in modes if plugin in self.handlers}
        else:
            ran = dict(modes[:1])
        wrong = {plugin: mode for plugin, mode in ran.items() if mode != self.mode}
        if not ran or wrong or (self.handlers and len(ran) != len(self.handlers)):
            raise ExecFailed(f"{self.name}: expected every jcni plugin to run {self.mode!r}, found "
                             f"{ran or 'no JCNI_DEBUG line'} in stderr: {err[:2000]}")

    def record(self):
        r = {"name": self.name, "side": self.side, "argv": self.argv, "samples": self.samples}
        if self.mode:
            r["mode_checked"] = self.mode
        if self.service_calls:
            r["service_calls_per_exec"] = [" ".join(c) for c in self.service_calls]
        return r


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
        self.live = []  # the variants of the running suite, for the count of its calls through the service

    # ---------------------------------------------------------------------------------------------- the service

    def start_service(self):
        os.makedirs(os.path.dirname(self.socket), mode=0o700, exist_ok=True)
        log = open(os.path.join(self.work, "service.log"), "w")
        # JCNI_DEBUG=1: a line per call in its log, counted after every suite (check_service_calls).
        self.service = subprocess.Popen([self.jcni_cli, "serve", "--socket", self.socket],
                                        env=self.env(JCNI_DEBUG="1"), stdin=subprocess.DEVNULL, stdout=log,
                                        stderr=log)
        deadline = time.monotonic() + 120
        while not os.path.exists(self.socket):
            if self.service.poll() is not None or time.monotonic() > deadline:
                raise ExecFailed(f"jcni serve did not start: {self.service_log()}")
            time.sleep(0.05)
        self.log(f"service: pid {self.service.pid} on {self.socket}")
        self.await_warm_up(self.service, os.path.join(self.work, "service.log"))

    def await_warm_up(self, service, log_path):
        """Waits until the service's own warm-up (jcni serve --warm-up, on by default) has ended, when it has one: it
        runs calls of its own in namespaces of its own on the same two cores, which would fall into the first suite's
        samples (the cold suite's other services, Go's execs). The service says at start whether it warms up (debug
        line 'warm-up: N rounds'), and when its warm-up ended."""
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and service.poll() is None:
            with open(log_path) as f:
                text = f.read()
            if "jcni serve: serving uids" in text and "jcni serve: warm-up: " not in text:
                return  # a service without a warm-up
            m = WARM_UP_END.search(text)
            if m:
                self.log(f"service pid {service.pid}: {m.group(0)[len('jcni serve: '):]}")
                return
            time.sleep(0.05)
        with open(log_path) as f:
            raise ExecFailed(f"the service's warm-up did not end in 180 s: {f.read()[-2000:]}")

    def stop_service(self):
        if self.service and self.service.poll() is None:
            self.service.terminate()
            self.service.wait(timeout=60)

    def service_log(self):
        with open(os.path.join(self.work, "service.log")) as f:
            return f.read()

    def service_calls(self):
        """The calls the service has logged so far: {"ADD bridge": count}; a call that failed stops the run."""
        calls = {}
        for command, plugin, status in SERVICE_CALL.findall(self.service_log()):
            if status != "0":
                raise ExecFailed(f"the service logged {command} {plugin} with status {status}")
            key = f"{command} {plugin}"
            calls[key] = calls.get(key, 0) + 1
        return calls

    def check_service_calls(self, suite, before):
        """The calls the service logged during `suite` must be exactly those its svc execs make: none went to a JVM
        launcher instead (a client that finds no service falls back silently), and no other side used the service."""
        expected = {}
        for v in self.live:
            for call in v.service_calls:
                key = " ".join(call)
                expected[key] = expected.get(key, 0) + v.runs
        deadline = time.monotonic() + 5  # the service logs a call before it answers; allow for the file's buffering
        while True:
            now = self.service_calls()
            logged = {k: now[k] - before.get(k, 0) for k in now if now[k] != before.get(k, 0)}
            if logged == expected or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if logged != expected:
            raise ExecFailed(f"{suite}: the service logged the calls {logged}, the svc side made {expected}")
        if suite in self.suites:
            self.suites[suite]["service_calls"] = logged
        return logged

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

    @staticmethod
    def through_service(side, command, *plugins):
        """The calls one exec of `plugins` on `side` makes through the service: one per jcni plugin exec'd (a
        delegate such as bridge's host-local runs in its caller, not through the service)."""
        return [(command, p) for p in plugins] if side == "svc" else []

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
                      self.side_env(side, CNI_COMMAND="VERSION"), stdin, has_versions,
                      service_calls=self.through_service(side, "VERSION", "host-local")) for side in SIDES]
        br = [Variant(f"{names[side]} bridge VERSION", side, [f"{self.plugins(side)}/bridge"],
                      self.side_env(side, CNI_COMMAND="VERSION"), stdin, has_versions,
                      service_calls=self.through_service(side, "VERSION", "bridge")) for side in SIDES]
        off = Variant("jcni host-local VERSION, AOT cache off", "jcni", [f"{self.dist}/host-local"], noaot, stdin,
                      has_versions)
        steps = [tuple(hl) + (off,), tuple(br)]
        self.rounds("version", steps, self.a.n, self.a.warmup)
        self.save("version", hl + br + [off], hyperfine=self.hyperfine())

    def rounds(self, suite, steps, rounds, warmup):
        self.live += [v for step in steps for v in step if v not in self.live]
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
                          self.side_env(side, CNI_COMMAND="ADD", **base), conf, has_ip,
                          service_calls=self.through_service(side, "ADD", "host-local"))
            delete = Variant(f"{side} host-local DEL{suffix}", side, [f"{exe}/host-local"],
                             self.side_env(side, CNI_COMMAND="DEL", **base), conf,
                             service_calls=self.through_service(side, "DEL", "host-local"))
            self.live += [add, delete]
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
            variants[side] = tuple(
                Variant(f"{side} {plugin} {command}", side, [f"{exe}/{plugin}"],
                        self.side_env(side, CNI_COMMAND=command, **base), path, has_ip if command == "ADD" else None,
                        phases=side != "go", mode=MODES.get(side),
                        service_calls=self.through_service(side, command, plugin))
                for command in ("ADD", "DEL"))
        steps = [tuple(variants[side][0] for side in SIDES), tuple(variants[side][1] for side in SIDES)]
        self.rounds(suite, steps, self.a.n, self.a.warmup)
        self.save(suite, [v for pair in steps for v in pair], plugin=plugin, ipam=ipam_type)

    def chain(self):
        """bridge (host-local) -> tuning, run by jcni's runtime CLI with each side's plugins."""
        self.runtime_chain("chain", lambda side: [
            {"type": "tuning", "mtu": 1400, "sysctl": {"net.core.somaxconn": "512"},
             "dataDir": os.path.join(self.work, f"chain-{side}-tuning")}])

    def bandwidth(self):
        """bridge (host-local) -> bandwidth (8 Mbit/s each way: a tbf on the host end, an ifb with its own tbf), run
        by jcni's runtime CLI with each side's plugins (issue 15). DEL removes the ifb (and the bridge's DEL the veth
        with its qdiscs), so every round starts from the same state."""
        self.runtime_chain("bandwidth", lambda side: [
            {"type": "bandwidth", "ingressRate": 8000000, "ingressBurst": 80000, "egressRate": 8000000,
             "egressBurst": 80000}], what="bandwidth ")

    def netfilter(self):
        """bridge (ipMasq, hairpin, host-local) -> tuning -> portmap with two published ports (issue 13's chain), run
        by jcni's runtime CLI with each side's plugins. Go's 1.1.1 write iptables rules (iptables-nft here), jcni's
        nftables over netlink; all of them in the bench host namespace. Each round also execs jcni's plain bridge
        VERSION: a JVM start with next to no work, the report's yardstick for the JVM starts in the plain chain."""
        caps = json.dumps({"portMappings": [{"hostPort": 8080, "containerPort": 80, "protocol": "tcp"},
                                            {"hostPort": 5353, "containerPort": 53, "protocol": "udp"}]})
        yardstick = Variant("jcni bridge VERSION (JVM start yardstick)", "jcni", [f"{self.dist}/bridge"],
                            self.side_env("jcni", CNI_COMMAND="VERSION"),
                            write(os.path.join(self.work, "version.json"), '{"cniVersion":"1.0.0"}'), has_versions)
        self.runtime_chain("netfilter", lambda side: [
            {"type": "tuning", "mtu": 1400, "sysctl": {"net.core.somaxconn": "512"},
             "dataDir": os.path.join(self.work, f"netfilter-{side}-tuning")},
            {"type": "portmap", "capabilities": {"portMappings": True}}],
            bridge={"ipMasq": True, "hairpinMode": True}, what="netfilter chain ", env={"CAP_ARGS": caps},
            extra_step=(yardstick,))

    def runtime_chain(self, suite, after_bridge, bridge=None, what="", env=None, extra_step=None):
        """A conflist of bridge (host-local) -> after_bridge(side), ADD then DEL of one attachment per side per
        round, run by jcni's runtime CLI (dist/bin/jcni add/del) with each side's plugins: Go's, jcni's exec'd and
        jcni's through the service (the runtime's own JVM is the same on every side). Per side, the network, its
        bridge and the container namespace are all named NAMESPACES[suite][side], with the subnet
        10.SUBNETS[suite].<1, 2, 3>.0/24; `bridge` adds keys to the bridge's config, `env` variables to the runtime's
        environment (e.g. CAP_ARGS), `extra_step` variants run once per round after the DELs. jcni's sides run with
        JCNI_DEBUG=1: each plugin's handler time from its timing line (the report splits the plugins' work from the
        rest), and how it ran, on every exec."""
        confdir = os.path.join(self.work, "netconf")
        os.makedirs(confdir, exist_ok=True)
        empty = write(os.path.join(self.work, "empty"), "")
        labels = {"go": "go plugins", "jcni": "jcni plugins", "svc": "jcni plugins via service"}
        variants = {}
        for i, side in enumerate(SIDES):
            name = NAMESPACES[suite][i]
            plugins = [dict({"type": "bridge", "bridge": name, "isGateway": True,
                             "ipam": {"type": "host-local", "dataDir": os.path.join(self.work, f"{name}-ipam"),
                                      "ranges": [[{"subnet": f"10.{SUBNETS[suite]}.{i + 1}.0/24"}]],
                                      "routes": [{"dst": "0.0.0.0/0"}]}}, **(bridge or {}))] + after_bridge(side)
            write(os.path.join(confdir, f"{name}.conflist"), json.dumps(
                {"cniVersion": "1.0.0", "name": name, "plugins": plugins}))
            types = [p["type"] for p in plugins]
            argv = [self.jcni_cli, "--conf-dir", confdir, "--cache-dir", os.path.join(self.work, "cache"),
                    "--cni-path", self.plugins(side), "--container-id", f"bench-{side}"]
            jcni = side != "go"
            run_env = self.side_env(side, JCNI_DEBUG="1" if jcni else None, **(env or {}))
            variants[side] = tuple(
                Variant(f"jcni runtime, {labels[side]}: {what}{command}", side,
                        argv + [command.lower(), name, self.netns(name)], run_env, empty,
                        has_ip if command == "ADD" else None, handlers=tuple(types) if jcni else (),
                        mode=MODES.get(side), service_calls=self.through_service(side, command, *types))
                for command in ("ADD", "DEL"))
        steps = [tuple(variants[side][0] for side in SIDES), tuple(variants[side][1] for side in SIDES)]
        if extra_step:
            steps.append(extra_step)
        self.rounds(suite, steps, self.a.n, self.a.warmup)
        self.save(suite, [v for step in steps for v in step])

    def containerd(self):
        """containerd 1.6's CRI (as a kubelet drives it) starting and removing pods on containerd's example network
        (bridge with isGateway, ipMasq and host-local over the pod CIDR, then portmap, then bandwidth: the it module's
        cni-conf-template.json, rendered by containerd from UpdateRuntimeConfig's pod CIDR), each pod with a host
        port and the bandwidth annotations. One node per side (a network namespace compare.sh made, a mount
        namespace of its own, containerd on the side's plugins in /opt/cni/bin: bench/containerd.py); the svc side's
        plugin service runs in its node's mount namespace, where containerd's clients can use it. Each round runs
        RunPodSandbox on every side, then StopPodSandbox, then RemovePodSandbox, the sides alternating which goes
        first; the CRI client times the gRPC call alone. The node's service is a JVM of its own, so the suite warms
        up with at least 10 pods per side. Afterwards every jcni plugin line in each jcni side's containerd log must
        say how it ran (exec, or via service), and the node's service must have logged exactly the calls those
        lines report."""
        import containerd as ctrd  # bench/containerd.py
        support = self.a.containerd_support
        nodes = {}
        sides_env = {"go": self.env(JCNI_SERVICE_SOCKET="off"),
                     "jcni": self.env(JCNI_SERVICE_SOCKET="off", JCNI_DEBUG="1")}
        try:
            for i, side in enumerate(SIDES):
                work = os.path.join(self.work, f"containerd-{side}")
                os.makedirs(work)
                env = sides_env.get(side)
                if side == "svc":
                    env = self.env(JCNI_SERVICE_SOCKET=os.path.join(work, "service", "plugins.sock"), JCNI_DEBUG="1")
                node = ctrd.Node(support, work, self.netns(NAMESPACES["containerd"][i]),
                                 f"/{self.a.tag}-{NAMESPACES['containerd'][i]}", self.plugins(side), env,
                                 self.jcni_cli if side == "svc" else None)
                nodes[side] = node
                self.log(f"containerd: starting the {side} node")
                node.start()
            warmup = max(self.a.warmup, 10)
            names = {"run": "RunPodSandbox", "stop": "StopPodSandbox", "remove": "RemovePodSandbox",
                     "stop+remove": "StopPodSandbox + RemovePodSandbox"}
            samples = {(side, k): [] for side in SIDES for k in names}
            pods = {}
            progress = self.progress("containerd")
            self.log(f"containerd: {warmup} warm-up + {self.a.n} rounds")
            for r in range(warmup + self.a.n):
                order = SIDES if r % 2 == 0 else tuple(reversed(SIDES))
                for step in ("run", "stop", "remove"):
                    for side in order:
                        node = nodes[side]
                        if step == "run":
                            response, took = node.call("RunPodSandbox", {"config": node.pod_config(f"pod-{r}")})
                            pods[side] = response["podSandboxId"]
                        else:
                            _, took = node.call(names[step], {"podSandboxId": pods[side]})
                        samples[(side, step)].append({"wall_ms": took, "warmup": r < warmup})
                for side in SIDES:
                    stop, remove = samples[(side, "stop")][-1], samples[(side, "remove")][-1]
                    samples[(side, "stop+remove")].append({"wall_ms": stop["wall_ms"] + remove["wall_ms"],
                                                           "warmup": r < warmup})
                progress(r + 1, warmup + self.a.n)
            ran = {side: self.containerd_plugin_lines(nodes[side], side) for side in ("jcni", "svc")}
            logged = {}
            for command, plugin, status in SERVICE_CALL.findall(nodes["svc"].service_log()):
                if status != "0":
                    raise ExecFailed(f"containerd: the node's service logged {command} {plugin} with status {status}")
                logged[f"{command} {plugin}"] = logged.get(f"{command} {plugin}", 0) + 1
            if logged != ran["svc"]:
                raise ExecFailed(f"containerd: the node's service logged {logged}, containerd's plugins said they ran "
                                 f"{ran['svc']} via the service")
            pods_run = warmup + self.a.n
            # Per pod: an ADD of loopback and of each plugin of the network (bridge's host-local runs in bridge's JVM),
            # a DEL of each at StopPodSandbox and again at RemovePodSandbox.
            types = ("loopback", "bridge", "portmap", "bandwidth")
            expected = dict([(f"ADD {t}", pods_run) for t in types] + [(f"DEL {t}", 2 * pods_run) for t in types])
            for side in ("jcni", "svc"):
                if ran[side] != expected:
                    raise ExecFailed(f"containerd: the {side} side's plugins ran {ran[side]}, not the {expected} of "
                                     f"{pods_run} pods")
            self.suites["containerd"] = {
                "variants": [{"name": f"{side} {names[k]}", "side": side, "samples": samples[(side, k)],
                              "mode_checked": MODES.get(side) if k == "run" else None}
                             for side in SIDES for k in names],
                "pods_per_side": pods_run, "own_service_calls": logged, "plugin_calls": ran}
        except ctrd.NodeFailed as e:
            raise ExecFailed(f"containerd: {e}")
        finally:
            failures = []
            for side, node in nodes.items():
                try:
                    node.stop()
                except (ctrd.NodeFailed, OSError) as e:
                    failures.append(f"{side}: {e}")
            if failures:
                raise ExecFailed("containerd: stopping the nodes: " + "; ".join(failures))

    def containerd_plugin_lines(self, node, side):
        """The jcni plugin calls containerd's log reports on `side` ({"ADD bridge": n}); each must have run the way
        the side says (MODES), else the run stops."""
        calls = {}
        for plugin, command, mode in re.findall(r"^([\w-]+): (ADD|DEL|CHECK) (exec|via service|in-process), pid \d+$",
                                                node.log(), re.M):
            if mode == "in-process":
                continue  # a delegate in its caller's JVM (bridge's host-local)
            if mode != MODES[side]:
                raise ExecFailed(f"containerd: on the {side} side {plugin} ran {command} {mode!r}")
            calls[f"{command} {plugin}"] = calls.get(f"{command} {plugin}", 0) + 1
        if not calls:
            raise ExecFailed(f"containerd: no jcni plugin line in the {side} node's containerd log")
        return calls

    def cluster_ipam(self, suite):
        """jcni's cluster-ipam ADD then DEL, exec'd and through the service, against one etcd member started here
        (Debian's etcd-server, data in the run's tmpfs work directory, on the bench host namespace's loopback), with
        Go's host-local ADD then DEL on an empty /16 as the anchor in the same rounds: Go has no etcd IPAM, so the
        ratio says what the cluster store costs over a node-local one, not jcni against Go."""
        etcd = shutil.which("etcd")
        if not etcd:
            raise ExecFailed("cluster-ipam: etcd is not installed (scripts/setup installs etcd-server)")
        client, peer = free_port(), free_port()
        endpoint = f"http://127.0.0.1:{client}"
        log = open(os.path.join(self.work, "etcd.log"), "w")
        proc = subprocess.Popen([etcd, "--name", "bench", "--data-dir", os.path.join(self.work, "etcd"),
                                 "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
                                 "--listen-peer-urls", f"http://127.0.0.1:{peer}",
                                 "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
                                 "--initial-cluster", f"bench=http://127.0.0.1:{peer}", "--log-level", "error"],
                                env=self.env(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        try:
            self.wait_for_etcd(proc, endpoint, log.name)
            pairs = []
            for i, side in enumerate(SIDES):
                exe = self.plugins(side)
                plugin = "host-local" if side == "go" else "cluster-ipam"
                ranges = [[{"subnet": f"10.{207 + i}.0.0/16"}]]
                if side == "go":
                    ipam = {"type": plugin, "dataDir": os.path.join(self.work, f"{suite}-go"), "ranges": ranges}
                else:
                    ipam = {"type": plugin, "nodeName": "bench", "ranges": ranges, "etcd": {"endpoints": [endpoint]}}
                conf = write(os.path.join(self.work, f"{suite}-{side}.json"), json.dumps(
                    {"cniVersion": "1.0.0", "name": f"{suite}-{side}", "type": "bridge", "ipam": ipam}))
                base = dict(CNI_CONTAINERID=f"bench-{side}", CNI_NETNS=self.netns("absent"), CNI_IFNAME="eth0",
                            CNI_PATH=exe, JCNI_DEBUG="1" if side != "go" else None)
                pairs.append(tuple(
                    Variant(f"{side} {plugin} {command}", side, [f"{exe}/{plugin}"],
                            self.side_env(side, CNI_COMMAND=command, **base), conf,
                            has_ip if command == "ADD" else None, phases=side != "go", mode=MODES.get(side),
                            service_calls=self.through_service(side, command, plugin))
                    for command in ("ADD", "DEL")))
            steps = [tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)]
            self.rounds(suite, steps, self.a.n, self.a.warmup)
            self.save(suite, [v for step in steps for v in step], etcd_members=1)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()

    def wait_for_etcd(self, proc, endpoint, log):
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{endpoint}/health", timeout=1) as r:
                    if json.loads(r.read()).get("health") == "true":
                        return
            except (OSError, ValueError):
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise ExecFailed(f"cluster-ipam: etcd did not come up at {endpoint} (its log: {log})")
            time.sleep(0.1)

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
                      self.side_env("svc", CNI_COMMAND="ADD", **base), conf, has_ip,
                      service_calls=[("ADD", "bridge")])
        delete = Variant("svc bridge DEL (RSS run)", "svc", [f"{self.dist}/bridge"],
                         self.side_env("svc", CNI_COMMAND="DEL", **base), conf, service_calls=[("DEL", "bridge")])
        version = Variant("svc bridge VERSION (RSS run)", "svc", [f"{self.dist}/bridge"],
                          self.side_env("svc", CNI_COMMAND="VERSION"),
                          write(os.path.join(self.work, "version.json"), '{"cniVersion":"1.0.0"}'), has_versions,
                          service_calls=[("VERSION", "bridge")])
        self.live += [add, delete, version]
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

    def cold(self):
        """The warm-up curve of a fresh service (issue 25): bridge + host-local ADD then DEL of one attachment, one at
        a time, through a service started for this alone, with Go's exec'd plugins interleaved call by call (each call
        index runs Go's and the service's ADD, then both DELs, alternating which goes first). Each round starts two
        fresh services, one as shipped (its AOT cache required: -XX:AOTMode=on, and its own warm-up), one without its
        cache (-XX:AOTMode=off), one with its cache but without its warm-up (--warm-up 0), their order rotating; the
        first call is made as soon as the service's socket exists (the service's time from its exec to that point is
        recorded too). A fourth, as shipped, gets its first call only once its own warm-up has ended ("booted": a
        service started with the node, before its runtime calls, as jcni-plugins.service is, against the socket
        activation of the others). Go's calls beside the services with and without a warm-up show what the warm-up's background
        work costs other processes on the node. The shared service of the other
        suites is not used: each of these services' logs must hold exactly the calls made through it. The bridges
        exist before the first call (an exec'd jcni ADD/DEL makes them), as after any earlier pod."""
        calls, rounds = self.a.cold_calls, self.a.cold_rounds
        sides = ("go", "aot", "noaot", "nowarm", "booted")
        labels = {"aot": "AOT cache", "noaot": "no AOT cache", "nowarm": "AOT cache, no warm-up",
                  "booted": "AOT cache, warm-up ended"}
        variants = {}
        for i, side in enumerate(sides):
            exe = self.go if side == "go" else self.dist
            ns = NAMESPACES["cold"][i]
            conf = write(os.path.join(self.work, f"cold-{side}.json"), json.dumps(
                {"cniVersion": "1.0.0", "name": f"cold-{side}", "type": "bridge", "bridge": ns, "isGateway": True,
                 "ipam": {"type": "host-local", "dataDir": os.path.join(self.work, f"cold-{side}-ipam"),
                          "ranges": [[{"subnet": f"10.{SUBNETS['cold']}.{i + 1}.0/24"}]],
                          "routes": [{"dst": "0.0.0.0/0"}]}}))
            base = dict(CNI_CONTAINERID=f"bench-cold-{side}", CNI_NETNS=self.netns(ns), CNI_IFNAME="eth0",
                        CNI_PATH=exe)
            socket_path = os.path.join(self.work, f"cold-{side}", "plugins.sock")
            env_side = "go" if side == "go" else "svc"
            variants[side] = tuple(
                Variant(f"{side if side == 'go' else 'svc, ' + labels[side]} "
                        f"bridge {command}", env_side, [f"{exe}/bridge"],
                        dict(self.side_env(env_side, CNI_COMMAND=command, **base),
                             **({} if side == "go" else {"JCNI_SERVICE_SOCKET": socket_path})),
                        conf, has_ip if command == "ADD" else None) for command in ("ADD", "DEL"))
            if side != "go":
                # The bridge, made by jcni's exec'd plugin (no service involved).
                for command in ("ADD", "DEL"):
                    Variant("cold bridge set-up", "jcni", [f"{self.dist}/bridge"],
                            self.side_env("jcni", CNI_COMMAND=command, **base), conf).run(self.work, True)
        starts = {"aot": [], "noaot": [], "nowarm": [], "booted": []}
        self.log(f"cold: {rounds} rounds of {calls} calls through a fresh service, with and without its AOT cache")
        progress = self.progress("cold")
        for r in range(rounds):
            services = sides[1:]
            for side in services[r % len(services):] + services[:r % len(services)]:
                socket_path = os.path.join(self.work, f"cold-{side}", "plugins.sock")
                os.makedirs(os.path.dirname(socket_path), mode=0o700, exist_ok=True)
                log_path = os.path.join(self.work, f"cold-{side}-{r}.log")
                opts = "-XX:AOTMode=off" if side == "noaot" else "-XX:AOTMode=on"
                with open(log_path, "w") as log:
                    begun = time.perf_counter_ns()
                    service = subprocess.Popen([self.jcni_cli, "serve", "--socket", socket_path]
                                               + (["--warm-up", "0"] if side == "nowarm" else []),
                                               env=self.env(JCNI_DEBUG="1", JCNI_JAVA_OPTS=opts),
                                               stdin=subprocess.DEVNULL, stdout=log, stderr=log)
                try:
                    deadline = time.monotonic() + 120
                    while not os.path.exists(socket_path):
                        if service.poll() is not None or time.monotonic() > deadline:
                            with open(log_path) as f:
                                raise ExecFailed(f"cold: jcni serve ({opts}) did not start: {f.read()}")
                        time.sleep(0.001)
                    starts[side].append((time.perf_counter_ns() - begun) / 1e6)
                    if side == "booted":
                        self.await_warm_up(service, log_path)
                    for k in range(calls):
                        pair = (variants["go"], variants[side]) if k % 2 == 0 else (variants[side], variants["go"])
                        for command in (0, 1):
                            for v in pair:
                                v[command].run(self.work, False)
                                v[command].samples[-1].update(call=k + 1, round=r, service=side)
                finally:
                    service.terminate()
                    service.wait(timeout=60)
                with open(log_path) as f:
                    text = f.read()
                logged = SERVICE_CALL.findall(text)
                if len(logged) != 2 * calls or any(status != "0" for _, _, status in logged):
                    raise ExecFailed(f"cold: the fresh service ({opts}) logged {len(logged)} calls for {2 * calls}: "
                                     f"{text[-2000:]}")
                warnings = [line for line in text.splitlines() if line and not line.startswith("jcni serve: ")]
                if warnings:
                    raise ExecFailed(f"cold: the service ({opts}) wrote more than its log: {warnings[:5]}")
            progress(r + 1, rounds)
        self.save("cold", [v for side in sides for v in variants[side]], calls=calls, rounds=rounds,
                  service_ready_ms=starts)

    def burst(self):
        """Pods started at once (issue 25): for each size of --burst-sizes, that many Go libcni processes started
        together (libcni-driver add, one process per pod, as containerd runs go-cni per sandbox), each adding its pod
        (a namespace of its own) to a network of bridge (ipMasq, hairpin, host-local) -> portmap (a hostPort each) ->
        firewall -> tuning; when all have ended, as many DELs at once. Three sides, each with its own network, bridge,
        subnet and ports: Go's plugins, jcni's exec'd (their JVM launchers) and jcni's through the shared service.
        Every round runs each side's ADD burst then its DEL burst, the sides' order rotating. Recorded per burst: wall
        time from the first spawn to the last exit, the CPU time of every process and of what it exec'd, each pod's
        own time, the pods that failed (with libcni's error) and any address given to two pods. Failures are recorded,
        not fatal, on every side (the report shows them; the run goes on, and each pod's DEL still runs). When no svc
        pod failed, the service must have logged exactly four calls per svc pod and command."""
        sizes = [int(x) for x in self.a.burst_sizes.split(",")]
        rounds = self.a.burst_rounds
        driver = os.path.join(self.a.go_bin, "libcni-driver")
        confs = {}
        for i, side in enumerate(SIDES):
            confs[side] = write(os.path.join(self.work, f"burst-{side}.conflist"), json.dumps(
                {"cniVersion": "1.0.0", "name": f"burst-{side}", "plugins": [
                    {"type": "bridge", "bridge": f"burst-{side}", "isGateway": True, "ipMasq": True,
                     "hairpinMode": True,
                     "ipam": {"type": "host-local", "dataDir": os.path.join(self.work, f"burst-{side}-ipam"),
                              "ranges": [[{"subnet": f"10.{SUBNETS['burst']}.{i + 1}.0/24"}]],
                              "routes": [{"dst": "0.0.0.0/0"}]}},
                    {"type": "portmap", "capabilities": {"portMappings": True}, "snat": True},
                    {"type": "firewall"},
                    {"type": "tuning", "sysctl": {"net.core.somaxconn": "512"},
                     "dataDir": os.path.join(self.work, f"burst-{side}-tuning")}]}))
        bursts = []
        self.log(f"burst: sizes {sizes}, {rounds} rounds each, sides {SIDES}")
        before = self.service_calls()
        svc_pods = {"ADD": 0, "DEL": 0}
        svc_clean = True
        for size in sizes:
            progress = self.progress(f"burst of {size}")
            for r in range(rounds):
                order = SIDES[r % 3:] + SIDES[:r % 3]
                for side in order:
                    for command in ("add", "del"):
                        pods = []
                        for i in range(size):
                            port = 30000 + 1000 * SIDES.index(side) + i
                            caps = json.dumps({"portMappings": [
                                {"hostPort": port, "containerPort": 80, "protocol": "tcp"}]})
                            argv = [driver, command, "--cni-path", self.plugins(side), "--cache-dir",
                                    os.path.join(self.work, f"burst-{side}-cache"), "--container-id",
                                    f"burst-{side}-{i}", "--cap-args", caps, confs[side],
                                    self.netns(f"burst-{side}-{i}")]
                            pods.append(Pod(i, argv, self.side_env(side),
                                            os.path.join(self.work, f"burst-{side}-{i}.out")))
                        wall, cpu = run_burst(pods)
                        failed = []
                        addresses = {}
                        for p in pods:
                            out, err = p.output()
                            if p.code != 0:
                                failed.append({"pod": p.index, "code": p.code,
                                               "error": (out.decode(errors="replace") + err)[:500]})
                            elif command == "add":
                                for ip in json.loads(out).get("ips", []):
                                    addresses.setdefault(ip["address"], []).append(p.index)
                        duplicates = {a: idx for a, idx in addresses.items() if len(idx) > 1}
                        if side == "svc":
                            svc_clean = svc_clean and not failed
                            svc_pods[command.upper()] += size
                        bursts.append({"size": size, "round": r, "side": side, "command": command.upper(),
                                       "wall_ms": wall, "cpu_ms": cpu,
                                       "pod_ms": [(p.end - p.start) / 1e6 for p in pods], "failed": failed,
                                       "duplicates": duplicates, "load1": os.getloadavg()[0]})
                        self.log(f"burst: {size} {side} {command}: {wall:.0f} ms, {len(failed)} failed"
                                 + (f", ADDRESSES GIVEN TWICE: {duplicates}" if duplicates else ""))
                progress(r + 1, rounds)
        # Every svc pod's four plugins ran in the shared service (none fell back to its JVM launcher); host-local
        # runs inside bridge.
        now = self.service_calls()
        plugins = ("bridge", "portmap", "firewall", "tuning")
        expected = {f"{c} {p}": n for c, n in svc_pods.items() for p in plugins if n}
        logged = {k: now[k] - before.get(k, 0) for k in now if now[k] != before.get(k, 0)}
        if svc_clean and logged != expected:
            raise ExecFailed(f"burst: the service logged {logged}, the svc pods made {expected}")
        self.suites["burst"] = {"sizes": sizes, "rounds": rounds, "bursts": bursts, "service_calls": logged}

    def run(self, suites):
        started = time.time()
        self.start_service()
        try:
            self.run_suites(suites)
        finally:
            self.stop_service()
        # The service's log but its line per call (those are counted per suite).
        log = "".join(line for line in self.service_log().splitlines(keepends=True) if not SERVICE_CALL.match(line))
        return {"started": started, "finished": time.time(), "n": self.a.n, "n_full": self.a.n_full,
                "warmup": self.a.warmup, "suites": self.suites, "service_log": log}

    def run_suites(self, suites):
        for suite in suites:
            before = self.service_calls()
            self.live = []
            self.run_suite(suite)
            if suite == "burst":
                continue  # its pods are not Variants: it counts its calls through the service itself
            calls = self.check_service_calls(suite, before)
            self.log(f"{suite}: the service ran {sum(calls.values())} calls, as many as the svc side made")

    def run_suite(self, suite):
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
        elif suite == "netfilter":
            self.netfilter()
        elif suite == "bandwidth":
            self.bandwidth()
        elif suite == "runtime":
            self.runtime()
        elif suite == "cluster-ipam":
            self.cluster_ipam(suite)
        elif suite == "containerd":
            self.containerd()
        elif suite == "cold":
            self.cold()
        elif suite == "burst":
            self.burst()


class Pod:
    """One pod's libcni-driver process in a burst: started with the others, reaped whenever it ends."""

    def __init__(self, index, argv, env, out_path):
        self.index, self.argv, self.env, self.out_path = index, argv, env, out_path
        self.pid = self.start = self.end = None
        self.code = None
        self.cpu_ms = 0.0

    def spawn(self):
        actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, self.out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
                   (os.POSIX_SPAWN_OPEN, 2, self.out_path + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
        self.start = time.perf_counter_ns()
        self.pid = os.posix_spawn(self.argv[0], self.argv, self.env, file_actions=actions)

    def output(self):
        with open(self.out_path, "rb") as f:
            out = f.read()
        with open(self.out_path + ".err", "rb") as f:
            return out, f.read().decode(errors="replace")


def run_burst(pods):
    """Starts every pod's process at once and reaps them as they end: (wall ms from the first spawn to the last
    exit, CPU ms of all of them and of what they exec'd)."""
    for p in pods:
        p.spawn()
    by_pid = {p.pid: p for p in pods}
    while by_pid:
        pid, status, usage = os.wait4(-1, 0)
        p = by_pid.pop(pid, None)
        if p is None:
            continue
        p.end = time.perf_counter_ns()
        p.code = os.waitstatus_to_exitcode(status)
        p.cpu_ms = (usage.ru_utime + usage.ru_stime) * 1000
    first = min(p.start for p in pods)
    return (max(p.end for p in pods) - first) / 1e6, sum(p.cpu_ms for p in pods)


def probed_rss(probe, variant, work):
    """The peak RSS (KiB) of one exec of `variant`, run under rss-probe."""
    err_path = os.path.join(work, "probe.err")
    with open(variant.stdin) as stdin, open(os.path.join(work, "probe.out"), "w") as out, \
            open(err_path, "w") as err:
        code = subprocess.call([probe] + variant.argv, env=variant.env, stdin=stdin, stdout=out, stderr=err)
    with open(err_path) as f:
        text = f.read()
    m = re.search(r"rss-probe maxrss_kb (\d+)", text)
    variant.runs += 1
    if code != 0 or not m:
        raise ExecFailed(f"rss-probe {variant.name}: exit {code}: {text[-2000:]}")
    return int(m.group(1))


def free_port():
    """A free TCP port on this (the bench host) namespace's loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    ns.add_argument("--burst-sizes", default=",".join(map(str, BURST_SIZES)))
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
    run.add_argument("--containerd-support", help="containerd suite: the it module's src/test/containerd")
    run.add_argument("--cold-calls", type=int, default=100, help="cold suite: calls per fresh service")
    run.add_argument("--cold-rounds", type=int, default=5, help="cold suite: fresh services per variant")
    run.add_argument("--burst-sizes", default=",".join(map(str, BURST_SIZES)),
                     help="burst suite: pods started at once, comma-separated")
    run.add_argument("--burst-rounds", type=int, default=3, help="burst suite: bursts per size and side")
    a = p.parse_args()
    suites = a.suites.split(",")
    unknown = [s for s in suites if s not in ALL_SUITES]
    if unknown:
        raise SystemExit(f"unknown suite(s) {unknown}; known: {','.join(ALL_SUITES)}")
    if a.cmd == "namespaces":
        for s in suites:
            for suffix in NAMESPACES.get(s, []):
                print(suffix)
            if s == "burst":
                for suffix in burst_namespaces(max(int(x) for x in a.burst_sizes.split(","))):
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
