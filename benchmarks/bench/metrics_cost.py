#!/usr/bin/env python3
"""The plugin service's bridge ADD (and DEL) with metrics on and off, interleaved (issue 28's budget: metrics on may
cost at most 3 %).

    sudo benchmarks/bench/metrics_cost.py [--dist DIST] [--n N] [--warmup N] [--tag TAG] [--json PATH]

compare.sh runs it as its `metrics` suite (through measure.py, which keeps what --json writes in results.json for
report.py); run alone, it prints the same figures.

Two services of the same dist, one started with --metrics-address 127.0.0.1:<free port> and one without, each on a
private socket, run in a bench host namespace made for the run, with a container namespace per side. Each round runs
bridge (host-local) ADD then DEL of one attachment through each side's client, in an order that alternates every
round, and takes the client's wall time (fork, exec, the call, exit), while a scraper reads the metrics-on service's
/metrics every second (a Prometheus scraping fifteen times as often as its default; the first scrape, before the
rounds, must answer with the service's series, and the scrapes that answered are counted). Prints medians, p90, the on/off
ratios with a bootstrap 95 % interval of the median ratio, and each service's CPU time (user + system, from
/proc/PID/stat) per ADD/DEL pair: on a busy machine wall times move with everyone's load, CPU time much less.
Its namespaces are <TAG>-metrics-host, -on and -off (TAG: compare.sh's run tag, so that its cleanup finds them;
alone, jcni-metrics-<pid>). Removes what it made, also on failure.
"""
import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def cpu_ticks(pid):
    """utime + stime of a process, in clock ticks (proc(5))."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dist", default=os.path.join(os.path.dirname(__file__), "..", "..", "dist"))
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--tag", default=f"jcni-metrics-{os.getpid()}", help="prefix of the namespaces it makes")
    p.add_argument("--json", help="also write the samples and figures here (measure.py's metrics suite)")
    a = p.parse_args()
    if a.n < 1:
        raise SystemExit("--n must be at least 1")
    dist = os.path.realpath(a.dist)
    work = tempfile.mkdtemp(prefix="jcni-metrics-cost.")
    os.chmod(work, 0o700)
    host = f"{a.tag}-metrics-host"
    sides = {"off": [], "on": ["--metrics-address", f"127.0.0.1:{free_port()}"]}
    services = {}
    made = []
    try:
        sh("ip", "netns", "add", host)
        made.append(host)
        sh("ip", "netns", "exec", host, "ip", "link", "set", "lo", "up")
        for i, side in enumerate(sides):
            c = f"{a.tag}-metrics-{side}"
            sh("ip", "netns", "add", c)
            made.append(c)
            sock = os.path.join(work, side, "plugins.sock")
            log = open(os.path.join(work, f"{side}.log"), "w")
            services[side] = (subprocess.Popen(["ip", "netns", "exec", host, f"{dist}/bin/jcni", "serve", "--socket",
                                                sock] + sides[side], stdout=log, stderr=subprocess.STDOUT), sock, c)
        deadline = time.time() + 60
        for side, (proc, sock, _) in services.items():
            while not os.path.exists(sock):
                if time.time() > deadline or proc.poll() is not None:
                    raise SystemExit(f"service {side} did not start: " + open(os.path.join(work, f"{side}.log")).read())
                time.sleep(0.05)
        variants = {}
        for i, (side, (_, sock, c)) in enumerate(services.items()):
            conf = json.dumps({"cniVersion": "1.0.0", "name": f"m-{side}", "type": "bridge", "bridge": f"jobs{side}",
                               "isGateway": True, "ipam": {"type": "host-local",
                                                           "dataDir": os.path.join(work, f"ipam-{side}"),
                                                           "ranges": [[{"subnet": f"10.219.{i + 1}.0/24"}]]}})
            env = dict(os.environ, CNI_CONTAINERID=f"m-{side}", CNI_NETNS=f"/var/run/netns/{c}", CNI_IFNAME="eth0",
                       CNI_PATH=f"{dist}/cni/bin", JCNI_SERVICE_SOCKET=sock)
            variants[side] = (conf, env)
        # The timing loop runs in the bench host namespace: a child python started there by `ip netns exec`.
        loop = os.path.join(work, "loop.py")
        with open(loop, "w") as f:
            f.write(LOOP)
        spec = os.path.join(work, "spec.json")
        with open(spec, "w") as f:
            json.dump({"variants": variants, "n": a.n, "warmup": a.warmup, "client": f"{dist}/cni/bin/bridge"}, f)
        port = sides["on"][1].split(":")[1]
        url = f"http://127.0.0.1:{port}/metrics"
        # The service binds its metrics listener after its plugin socket: the first scrape may come too early.
        ready = time.time() + 20
        while True:
            first = sh("ip", "netns", "exec", host, "curl", "-sSf", "--max-time", "10", url, check=False)
            if first.returncode == 0 or time.time() > ready:
                break
            time.sleep(0.1)
        if first.returncode != 0 or "# TYPE jcni_plugin_calls_total counter" not in first.stdout:
            raise SystemExit(f"the metrics-on service does not answer {url}: {first.stderr}{first.stdout[:500]}")
        scrapes = os.path.join(work, "scrapes")
        scraper = subprocess.Popen(["ip", "netns", "exec", host, "sh", "-c",
                                    f"while :; do curl -sf -o /dev/null {url} && echo >>{scrapes}; sleep 1; done"])
        cpu_before = {side: cpu_ticks(proc.pid) for side, (proc, _, _) in services.items()}
        try:
            out = sh("ip", "netns", "exec", host, sys.executable, loop, spec).stdout
        finally:
            scraper.kill()
            scraper.wait()
        cpu_after = {side: cpu_ticks(proc.pid) for side, (proc, _, _) in services.items()}
        samples = json.loads(out)
        ratios = report(samples)
        hz = os.sysconf("SC_CLK_TCK")
        pairs = a.n + a.warmup
        cpu = {}
        for side, (proc, _, _) in services.items():
            cpu[side] = (cpu_after[side] - cpu_before[side]) * 1000 / hz / pairs
            print(f"service {side} (pid {proc.pid}): {cpu[side]:.3f} ms "
                  f"CPU per ADD/DEL pair ({pairs} pairs, {cpu_after[side] - cpu_before[side]} ticks)")
        scraped = 1  # the first, before the rounds
        if os.path.exists(scrapes):
            with open(scrapes) as f:
                scraped += sum(1 for _ in f)
        print(f"scrapes of the metrics-on service that answered: {scraped}")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"n": a.n, "warmup": a.warmup, "scrape_interval_s": 1, "scrapes": scraped,
                           "samples_ms": {k: [x / 1e6 for x in v] for k, v in samples.items()},
                           "ratios": ratios, "cpu_ms_per_pair": cpu}, f)
        for side, (_, sock, _) in services.items():
            if side == "on":
                text = sh("ip", "netns", "exec", host, f"{dist}/bin/jcni", "stats", f"127.0.0.1:{port}").stdout
                print("\nmetrics-on service, jcni stats:\n" + text)
    finally:
        for proc, _, _ in services.values():
            proc.send_signal(signal.SIGTERM)
        for proc, _, _ in services.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        for ns in reversed(made):
            sh("ip", "netns", "delete", ns, check=False)
        sh("rm", "-rf", work, check=False)


LOOP = r'''
import json, subprocess, sys, time
spec = json.load(open(sys.argv[1]))
samples = {f"{s} {c}": [] for s in spec["variants"] for c in ("ADD", "DEL")}
def call(side, command):
    conf, env = spec["variants"][side]
    env = dict(env, CNI_COMMAND=command)
    t = time.perf_counter_ns()
    r = subprocess.run([spec["client"]], input=conf.encode(), env=env, capture_output=True)
    d = time.perf_counter_ns() - t
    if r.returncode != 0:
        raise SystemExit(f"{side} {command} failed: {r.stdout!r} {r.stderr!r}")
    return d
sides = list(spec["variants"])
for i in range(spec["warmup"] + spec["n"]):
    order = sides if i % 2 == 0 else sides[::-1]
    for side in order:
        add = call(side, "ADD")
        dele = call(side, "DEL")
        if i >= spec["warmup"]:
            samples[f"{side} ADD"].append(add)
            samples[f"{side} DEL"].append(dele)
print(json.dumps(samples))
'''


def report(samples):
    def q(xs, p):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(p * len(xs)))]
    print(f"{'variant':<10} {'n':>5} {'median ms':>10} {'p90 ms':>8}")
    for k, v in samples.items():
        print(f"{k:<10} {len(v):>5} {statistics.median(v) / 1e6:>10.3f} {q(v, 0.9) / 1e6:>8.3f}")
    rnd = random.Random(28)
    ratios = {}
    for c in ("ADD", "DEL"):
        on, off = samples[f"on {c}"], samples[f"off {c}"]
        ratio = statistics.median(on) / statistics.median(off)
        boots = sorted(statistics.median(rnd.choices(on, k=len(on))) / statistics.median(rnd.choices(off, k=len(off)))
                       for _ in range(2000))
        print(f"bridge {c} metrics on/off: median ratio {ratio:.4f} (95 % interval {boots[50]:.4f} .. {boots[1949]:.4f})")
        ratios[c] = {"median_ratio": ratio, "interval": [boots[50], boots[1949]], "confidence": 0.95}
    return ratios


if __name__ == "__main__":
    main()
