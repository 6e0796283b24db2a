#!/usr/bin/env python3
"""bridge + host-local ADD and DEL exec'd as a runtime execs them: jcni's against Debian's Go plugins, interleaved.

    plugins-core/bench/bridge-bench.py [runs] [--ptp] [--static]     # as root, after ./mvnw -B package

Each round execs, in this order: Go ADD, jcni ADD, Go DEL, jcni DEL (then the same with the order of Go and jcni
swapped in the next round, so neither always runs right after the other), each in its own namespace and on its own
bridge, with the environment and stdin a runtime gives a plugin. Every exec is timed from spawn to exit (the plugin's
stdout read in full). jcni runs with JCNI_DEBUG=1 and its phase timing line is collected, so the report shows where
jcni's time goes: the handler's phases (netns open, bridge, veth, port, IPAM, container, gateway, port-up) and what
is left outside the handler (JVM start, skel, decoding, JVM exit). A VERSION exec of each plugin is timed too: the
floor of an exec with no work.

jcni's bridge finds host-local in CNI_PATH=dist/cni/bin:/usr/lib/cni: jcni's own (run in-process) once it ships,
Go's (exec'd) until then; the report says which. With --static, both use the static IPAM plugin instead (Go's
bridge execs Go's static, jcni's runs jcni's static in-process): what delegating in-process saves. Everything is made here and removed at the end: namespaces
jcni-net-bench-*, bridges jcni-net-bgo/jcni-net-bjc, data dirs under /dev/shm. Medians; no assertion on time.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DIST = os.path.join(ROOT, "dist", "cni", "bin")
GO = os.environ.get("GO_PLUGINS", "/usr/lib/cni")
PHASE = re.compile(r"timing (ADD|DEL): (.*)")


def run(argv, env, stdin=b""):
    start = time.perf_counter_ns()
    p = subprocess.run(argv, env=env, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter_ns() - start
    if p.returncode != 0:
        raise SystemExit(f"{argv[0]} {env.get('CNI_COMMAND')} failed ({p.returncode}): {p.stdout!r} {p.stderr!r}")
    return elapsed, p.stderr.decode()


def sh(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = int(args[0]) if args else 30
    plugin = "ptp" if "--ptp" in sys.argv else "bridge"
    ipam_type = "static" if "--static" in sys.argv else "host-local"
    if os.geteuid() != 0:
        raise SystemExit("needs root (namespaces, bridges)")
    for p in (os.path.join(DIST, plugin), os.path.join(GO, plugin), os.path.join(GO, ipam_type)):
        if not os.access(p, os.X_OK):
            raise SystemExit(f"missing {p} (./mvnw -B package; apt-get install containernetworking-plugins)")
    jcni_ipam = os.access(os.path.join(DIST, ipam_type), os.X_OK)

    work = tempfile.mkdtemp(prefix="jcni-net-bench.", dir="/dev/shm")
    sides = {}
    for side, subnet, cni_path in (("go", "10.217.1.0/24", GO), ("jcni", "10.217.2.0/24", DIST + ":" + GO)):
        ns = f"jcni-net-bench-{side}"
        ipam = {"type": "host-local", "dataDir": os.path.join(work, side), "ranges": [[{"subnet": subnet}]],
                "routes": [{"dst": "0.0.0.0/0"}]}
        if ipam_type == "static":
            address = subnet.replace("0/24", "5/24")
            ipam = {"type": "static", "addresses": [{"address": address, "gateway": subnet.replace("0/24", "1")}],
                    "routes": [{"dst": "0.0.0.0/0"}]}
        conf = {"cniVersion": "1.0.0", "name": f"bench-{side}", "type": plugin, "ipam": ipam}
        if plugin == "bridge":
            conf.update({"bridge": "jcni-net-bgo" if side == "go" else "jcni-net-bjc", "isGateway": True})
        exe = os.path.join(GO if side == "go" else DIST, plugin)
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "CNI_CONTAINERID": f"bench-{side}",
               "CNI_NETNS": f"/var/run/netns/{ns}", "CNI_IFNAME": "eth0", "CNI_PATH": cni_path}
        if side == "jcni":
            env["JCNI_DEBUG"] = "1"
        sides[side] = {"ns": ns, "exe": exe, "env": env, "conf": json.dumps(conf).encode(),
                       "ADD": [], "DEL": [], "VERSION": [], "phases": {"ADD": [], "DEL": []}}
    try:
        for s in sides.values():
            sh("ip", "netns", "add", s["ns"])
        for i in range(runs + 2):  # two warm-up rounds, not counted
            order = ("go", "jcni") if i % 2 == 0 else ("jcni", "go")
            for command in ("ADD", "DEL", "VERSION"):
                for side in order:
                    s = sides[side]
                    env = dict(s["env"], CNI_COMMAND=command)
                    elapsed, err = run([s["exe"]], env, b"" if command == "VERSION" else s["conf"])
                    if i < 2:
                        continue
                    s[command].append(elapsed)
                    for m in PHASE.finditer(err):
                        s["phases"][m.group(1)].append(dict(
                            (k, int(v)) for k, v in re.findall(r"([\w+-]+) (\d+) us", m.group(2))))
    finally:
        for s in sides.values():
            subprocess.run(["ip", "netns", "del", s["ns"]], stderr=subprocess.DEVNULL)
        for br in ("jcni-net-bgo", "jcni-net-bjc"):
            subprocess.run(["ip", "link", "del", br], stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)

    ms = lambda ns: ns / 1e6
    print(f"{plugin} + {ipam_type}, {runs} interleaved rounds; jcni's {ipam_type}: "
          f"{'jcni (in-process)' if jcni_ipam else 'Go (exec) - jcni ' + ipam_type + ' not shipped yet'}")
    print(f"{'':10} {'Go median':>10} {'jcni median':>12} {'ratio':>6}   (ms; min Go/jcni)")
    for command in ("ADD", "DEL", "VERSION"):
        g = statistics.median(sides["go"][command])
        j = statistics.median(sides["jcni"][command])
        print(f"{command:10} {ms(g):10.1f} {ms(j):12.1f} {j / g:6.2f}   "
              f"({ms(min(sides['go'][command])):.1f}/{ms(min(sides['jcni'][command])):.1f})")
    for command in ("ADD", "DEL"):
        phases = sides["jcni"]["phases"][command]
        if not phases:
            continue
        keys = list(phases[0].keys())
        total = statistics.median(sides["jcni"][command]) / 1000
        handler = statistics.median(p.get("handler", 0) for p in phases)
        parts = ", ".join(f"{k} {statistics.median(p.get(k, 0) for p in phases) / 1000:.1f}" for k in keys
                          if k != "handler")
        print(f"jcni {command} where the time goes (median ms): {parts}; handler {handler / 1000:.1f}; "
              f"outside the handler (JVM start+exit, skel, decode) {(total - handler) / 1000:.1f}")


if __name__ == "__main__":
    main()
