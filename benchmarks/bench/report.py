#!/usr/bin/env python3
"""Turns the measurements of benchmarks/compare.sh into the report: Markdown tables and one SVG chart.

    report.py --results results.json --start machine-start.json --end machine-end.json [--jmh jmh.json]
              [--options TEXT] --out DIR

Every number in the report is computed here from the raw samples (measure.py) and JMH's JSON; targets come from the
issues and are listed in TARGETS below with where they come from; whether each is met is computed, not written.
Statistics: median and the 10th-90th percentile range of the measured (not warm-up) samples, linear interpolation
between order statistics; the ratio is jcni's median over Go's; its 90 % interval is a bootstrap (2000 resamples,
fixed seed: the report is reproducible from results.json), resampling interleaved rounds as pairs where the two sides
ran in the same rounds."""
import argparse
import json
import math
import os
import random
import re

NF_ADD = "bridge(ipMasq) → tuning → portmap ADD, run by `jcni` (Go plugins vs jcni plugins)"
NF_DEL = "bridge(ipMasq) → tuning → portmap DEL, run by `jcni` (Go plugins vs jcni plugins)"
# Issue 13's anchors for that chain with Go's plugins, measured through Go libcni before jcni had portmap.
NF_GO_ANCHORS = {"ADD": 88, "DEL": 190}

# (suite, Go variant, jcni variant, label, target ratio or None, target's source); the chart's labels are in SHORT.
EXEC_ROWS = [
    ("version", "go host-local VERSION", "jcni host-local VERSION", "VERSION exec (host-local)", 10, "issue 5"),
    ("version", "go bridge VERSION", "jcni bridge VERSION", "VERSION exec (bridge)", None, None),
    ("version", "go host-local VERSION", "jcni host-local VERSION, AOT cache off",
     "VERSION exec (host-local), jcni without its AOT cache", None, None),
    ("host-local", "go host-local ADD", "jcni host-local ADD", "host-local ADD, empty /16", 8, "issue 5"),
    ("host-local", "go host-local DEL", "jcni host-local DEL", "host-local DEL, empty /16", None, None),
    ("host-local-90", "go host-local ADD", "jcni host-local ADD", "host-local ADD, 90 % of a /16", 8, "issue 5"),
    ("host-local-90", "go host-local DEL", "jcni host-local DEL", "host-local DEL, 90 % of a /16", None, None),
    ("bridge", "go bridge ADD", "jcni bridge ADD", "bridge + host-local ADD", 3, "issue 6"),
    ("bridge", "go bridge DEL", "jcni bridge DEL", "bridge + host-local DEL", 2, "issue 6"),
    ("bridge-static", "go bridge ADD", "jcni bridge ADD", "bridge + static ADD", None, None),
    ("bridge-static", "go bridge DEL", "jcni bridge DEL", "bridge + static DEL", None, None),
    ("cluster-ipam", "go host-local ADD", "jcni cluster-ipam ADD",
     "cluster-ipam ADD, 1 etcd member (anchor: Go host-local ADD; Go has no etcd IPAM)", None, None),
    ("cluster-ipam", "go host-local DEL", "jcni cluster-ipam DEL",
     "cluster-ipam DEL, 1 etcd member (anchor: Go host-local DEL)", None, None),
    ("ptp", "go ptp ADD", "jcni ptp ADD", "ptp + host-local ADD", None, None),
    ("ptp", "go ptp DEL", "jcni ptp DEL", "ptp + host-local DEL", None, None),
    ("chain", "jcni runtime, go plugins: ADD", "jcni runtime, jcni plugins: ADD",
     "bridge → tuning chain ADD, run by `jcni` (Go plugins vs jcni plugins)", None, None),
    ("chain", "jcni runtime, go plugins: DEL", "jcni runtime, jcni plugins: DEL",
     "bridge → tuning chain DEL, run by `jcni` (Go plugins vs jcni plugins)", None, None),
    ("netfilter", "jcni runtime, go plugins: netfilter chain ADD", "jcni runtime, jcni plugins: netfilter chain ADD",
     NF_ADD, 1.0, "issue 13"),
    ("netfilter", "jcni runtime, go plugins: netfilter chain DEL", "jcni runtime, jcni plugins: netfilter chain DEL",
     NF_DEL, 0.7, "issue 13"),
    ("bandwidth", "jcni runtime, go plugins: bandwidth ADD", "jcni runtime, jcni plugins: bandwidth ADD",
     "bridge → bandwidth chain ADD, run by `jcni` (Go plugins vs jcni plugins)", None, None),
    ("bandwidth", "jcni runtime, go plugins: bandwidth DEL", "jcni runtime, jcni plugins: bandwidth DEL",
     "bridge → bandwidth chain DEL, run by `jcni` (Go plugins vs jcni plugins)", None, None),
    ("runtime", "go version", "jcni version",
     "runtime exec overhead: VERSION of a trivial Go plugin (Go libcni vs jcni CniRuntime)", 1.2, "issue 3"),
    ("runtime", "go version", "jcni version-helper",
     "runtime exec overhead, jcni with 1 pre-started launch helper", 1.2, "issue 3"),
    ("runtime", "go add", "jcni add", "runtime list ADD of a trivial Go plugin, with result cache", None, None),
]
SHORT = {
    "VERSION exec (host-local)": "VERSION (host-local)",
    "VERSION exec (bridge)": "VERSION (bridge)",
    "VERSION exec (host-local), jcni without its AOT cache": "VERSION (host-local), jcni no AOT cache",
    "host-local ADD, empty /16": "host-local ADD, empty /16",
    "host-local DEL, empty /16": "host-local DEL, empty /16",
    "host-local ADD, 90 % of a /16": "host-local ADD, 90 % of /16",
    "host-local DEL, 90 % of a /16": "host-local DEL, 90 % of /16",
    "bridge + host-local ADD": "bridge + host-local ADD",
    "bridge + host-local DEL": "bridge + host-local DEL",
    "bridge + static ADD": "bridge + static ADD",
    "bridge + static DEL": "bridge + static DEL",
    "cluster-ipam ADD, 1 etcd member (anchor: Go host-local ADD; Go has no etcd IPAM)":
        "cluster-ipam ADD (vs Go host-local)",
    "cluster-ipam DEL, 1 etcd member (anchor: Go host-local DEL)": "cluster-ipam DEL (vs Go host-local)",
    "ptp + host-local ADD": "ptp + host-local ADD",
    "ptp + host-local DEL": "ptp + host-local DEL",
    "bridge → tuning chain ADD, run by `jcni` (Go plugins vs jcni plugins)": "chain ADD by jcni: Go vs jcni plugins",
    "bridge → tuning chain DEL, run by `jcni` (Go plugins vs jcni plugins)": "chain DEL by jcni: Go vs jcni plugins",
    NF_ADD: "netfilter chain ADD by jcni: Go vs jcni plugins",
    NF_DEL: "netfilter chain DEL by jcni: Go vs jcni plugins",
    "bridge → bandwidth chain ADD, run by `jcni` (Go plugins vs jcni plugins)": "bandwidth chain ADD by jcni",
    "bridge → bandwidth chain DEL, run by `jcni` (Go plugins vs jcni plugins)": "bandwidth chain DEL by jcni",
    "runtime exec overhead: VERSION of a trivial Go plugin (Go libcni vs jcni CniRuntime)":
        "runtime exec: Go libcni vs CniRuntime",
    "runtime exec overhead, jcni with 1 pre-started launch helper": "runtime exec, 1 launch helper",
    "runtime list ADD of a trivial Go plugin, with result cache": "runtime list ADD + cache",
}
# Issue 5: host-local ADD "must not grow with the fill". Read here as: jcni's median at 90 % at most this many times
# its median on an empty /16 in the same rounds (the noise between two exec rows on this machine is of that order).
FILL_GROWTH_MAX = 1.25
GO_COLOR, JCNI_COLOR = "#00add8", "#e76f00"


# ------------------------------------------------------------------------------------------------- statistics

def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summary(values):
    s = sorted(values)
    return {"n": len(s), "median": percentile(s, 0.5), "p10": percentile(s, 0.1), "p90": percentile(s, 0.9)}


def median(values):
    return percentile(sorted(values), 0.5)


def ratio_interval(go, jcni, paired, seed=20261121, resamples=2000):
    """90 % bootstrap interval of median(jcni) / median(go)."""
    rng = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        if paired:
            idx = [rng.randrange(len(go)) for _ in go]
            g, j = [go[i] for i in idx], [jcni[i] for i in idx]
        else:
            g = [rng.choice(go) for _ in go]
            j = [rng.choice(jcni) for _ in jcni]
        mg = median(g)
        if mg > 0:
            ratios.append(median(j) / mg)
    ratios.sort()
    return percentile(ratios, 0.05), percentile(ratios, 0.95)


def measured(variant, key="wall_ms"):
    return [s[key] for s in variant["samples"] if not s["warmup"] and key in s]


# ------------------------------------------------------------------------------------------------- formatting

def ms(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def us(x):
    return "–" if x is None else f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.3f}"


def spread(s, fmt=ms):
    return f"{fmt(s['median'])} ({fmt(s['p10'])}–{fmt(s['p90'])})"


def verdict(value, target, at_most=True):
    if target is None or value is None:
        return "–"
    ok = value <= target if at_most else value >= target
    return "**met**" if ok else "**not met**"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------- exec rows

def exec_rows(results):
    rows = []
    suites = results["suites"]
    for suite, go_name, jcni_name, label, target, source in EXEC_ROWS:
        if suite not in suites:
            continue
        variants = {v["name"]: v for v in suites[suite]["variants"]}
        go, jcni = variants[go_name], variants[jcni_name]
        gw, jw = measured(go), measured(jcni)
        paired = suite != "runtime" and len(gw) == len(jw)
        g, j = summary(gw), summary(jw)
        ratio = j["median"] / g["median"]
        rows.append({
            "suite": suite, "label": label, "short": SHORT.get(label, label), "go": g, "jcni": j, "ratio": ratio,
            "interval": ratio_interval(gw, jw, paired), "target": target, "source": source,
            "go_rss": summary([kb / 1024 for kb in measured(go, "rss_kb")]) if measured(go, "rss_kb") else None,
            "jcni_rss": summary([kb / 1024 for kb in measured(jcni, "rss_kb")]) if measured(jcni, "rss_kb") else None,
            "go_cpu": summary(measured(go, "cpu_ms")) if measured(go, "cpu_ms") else None,
            "jcni_cpu": summary(measured(jcni, "cpu_ms")) if measured(jcni, "cpu_ms") else None,
            "phases": [s.get("phases") for s in jcni["samples"] if not s["warmup"] and s.get("phases")],
        })
    return rows


def exec_section(results, rows):
    out = ["## Exec latency, interleaved (Go vs jcni in the same rounds)", ""]
    out.append(table(
        ["measurement", "n", "Go median (p10–p90) ms", "jcni median (p10–p90) ms", "jcni/Go (90 % CI)", "target",
         "met"],
        [[r["label"], r["go"]["n"] if r["go"]["n"] == r["jcni"]["n"] else f"{r['go']['n']}/{r['jcni']['n']}",
          spread(r["go"]), spread(r["jcni"]),
          f"{r['ratio']:.2f} ({r['interval'][0]:.2f}–{r['interval'][1]:.2f})",
          f"≤ {r['target']}× ({r['source']})" if r["target"] else "–", verdict(r["ratio"], r["target"])]
         for r in rows]))
    growth = fill_growth(results)
    if growth:
        out += ["", "Fill independence (issue 5: host-local ADD at 90 % of a /16 must not grow with the fill; read "
                f"here as at most {FILL_GROWTH_MAX}× the median on an empty /16 measured in the same rounds):", "",
                table(["implementation", "ADD median empty /16 ms", "ADD median 90 % ms", "90 % / empty", "met"],
                      [["Go", ms(growth["go"][0]), ms(growth["go"][1]), f"{growth['go'][2]:.2f}", "–"],
                       ["jcni", ms(growth["jcni"][0]), ms(growth["jcni"][1]), f"{growth['jcni'][2]:.2f}",
                        verdict(growth["jcni"][2], FILL_GROWTH_MAX)]])]
    with_rss = [r for r in rows if r["go_rss"] and r["jcni_rss"]]
    if with_rss:
        out += ["", "### Peak RSS and CPU time per exec", "",
                "Peak RSS is `ru_maxrss` from `wait4`: the largest process of the exec's tree (for the chain rows that "
                "is usually the `jcni` runtime's JVM, the same on both sides). CPU is user + system time of the exec's "
                "tree. Medians.", "",
                table(["measurement", "Go RSS MiB", "jcni RSS MiB", "jcni/Go", "Go CPU ms", "jcni CPU ms"],
                      [[r["label"], f"{r['go_rss']['median']:.1f}", f"{r['jcni_rss']['median']:.1f}",
                        f"{r['jcni_rss']['median'] / r['go_rss']['median']:.1f}", ms(r["go_cpu"]["median"]),
                        ms(r["jcni_cpu"]["median"])] for r in with_rss])]
    return out


def fill_growth(results):
    """Per side: (ADD median on an empty /16, at 90 %, their ratio), from the host-local-90 suite's rounds (its
    control variants ran on an empty /16 in the same rounds)."""
    suite = results["suites"].get("host-local-90")
    if not suite:
        return None
    variants = {v["name"]: v for v in suite["variants"]}
    growth = {}
    for side in ("go", "jcni"):
        control = variants.get(f"{side} host-local ADD, empty /16 (control)")
        if not control:
            return None
        empty, full = median(measured(control)), median(measured(variants[f"{side} host-local ADD"]))
        growth[side] = (empty, full, full / empty)
    return growth


def phases_section(rows):
    out = []
    for r in rows:
        if not r["phases"]:
            continue
        keys = []
        for p in r["phases"]:
            keys += [k for k in p if k not in keys]
        med = {k: median([p.get(k, 0.0) for p in r["phases"]]) for k in keys}
        handler = med.pop("handler", None)
        if handler is None:
            continue
        if not out:
            out = ["", "### Where jcni's time goes (JCNI_DEBUG=1 phase lines, medians, ms)", "",
                   "The handler's phases come from the plugin's own timing line; *outside the handler* is the exec's "
                   "wall median minus the handler's: JVM start and exit, the launcher script, the skel's environment "
                   "and stdin decoding, result encoding.", ""]
        parts = ", ".join(f"{k} {v:.1f}" for k, v in med.items())
        out.append(f"- **{r['label']}** (wall {ms(r['jcni']['median'])}): {parts}; handler {handler:.1f}; "
                   f"outside the handler {r['jcni']['median'] - handler:.1f}")
    return out


def hyperfine_section(results):
    hf = results["suites"].get("version", {}).get("hyperfine")
    if not hf:
        return []
    s = {h["side"]: summary(h["times_ms"]) for h in hf}
    return ["", "### Cross-check: the same VERSION execs timed by hyperfine -N", "",
            "hyperfine runs Go's executions first, then jcni's (not interleaved), with stdin /dev/null.", "",
            table(["tool", "Go median (p10–p90) ms", "jcni median (p10–p90) ms", "jcni/Go", "n"],
                  [["hyperfine", spread(s["go"]), spread(s["jcni"]), f"{s['jcni']['median'] / s['go']['median']:.2f}",
                    s["go"]["n"]]])]


# ------------------------------------------------------------------------------------------------- JMH

def jmh_index(jmh):
    """benchmark short name (Class.method) + sorted params -> entry."""
    index = {}
    for e in jmh:
        cls, method = e["benchmark"].rsplit(".", 2)[-2:]
        index[(f"{cls}.{method}", tuple(sorted(e.get("params", {}).items())))] = e
    return index


def to_us(value, unit):
    factor = {"ns/op": 1e-3, "us/op": 1.0, "ms/op": 1e3, "s/op": 1e6}[unit]
    return value * factor


def typical_us(e):
    """SampleTime: the median sample; AverageTime: the mean. Both per operation, in microseconds."""
    m = e["primaryMetric"]
    value = m["scorePercentiles"]["50.0"] if e["mode"] == "sample" else m["score"]
    return to_us(value, m["scoreUnit"])


def jmh_section(jmh, jmh_options, rows):
    idx = jmh_index(jmh)

    def get(name, **params):
        return idx.get((name, tuple(sorted((k, str(v)) for k, v in params.items()))))

    out = ["", "## JMH (in-process)", "", f"JMH options: `{jmh_options}`. Scores per operation: the mean for "
           "average-time benchmarks, the median sample for sample-time ones (the tables say p50).", ""]
    # netlink
    pairs = [("address add", "addressAdd", "addressAddBatched", 26), ("route add", "routeAdd", "routeAddBatched", 9),
             ("veth add", "vethAdd", "vethAddBatched", None), ("veth delete", "vethDelete", "vethDeleteBatched", None)]
    nrows = []
    for label, single, batched, target in pairs:
        s, b = get(f"NetlinkBenchmarks.{single}"), get(f"NetlinkBenchmarks.{batched}")
        if not s or not b:
            continue
        su, bu = typical_us(s), typical_us(b)
        speedup = su / bu
        speed_target = 2.5 if target else None
        nrows.append([label, us(su), f"≤ {target} (issue 4)" if target else "–", verdict(su, target), us(bu),
                      f"{speedup:.1f}×", f"≥ {speed_target}× (issue 4)" if speed_target else "–",
                      verdict(speedup, speed_target, at_most=False)])
    if nrows:
        out += ["### netlink: one request + ACK vs batched (per request, in a namespace the benchmark creates)", "",
                table(["operation", "single µs", "target", "met", "batched µs/request", "batch speed-up", "target",
                       "met"], nrows), ""]
    # IPAM
    irows = []
    for fs in ("tmpfs", "disk"):
        for store in ("warm", "cold"):
            for fill in ("0", "50", "90", "99"):
                cells = []
                for method in ("allocate", "release", "findById"):
                    e = get(f"HostLocalBenchmark.{method}", fill=fill, fs=fs, store=store)
                    cells.append(us(typical_us(e)) if e else None)
                if all(c is None for c in cells):
                    continue
                alloc = get("HostLocalBenchmark.allocate", fill=fill, fs=fs, store=store)
                target = 10 if (fs, store, fill) == ("tmpfs", "warm", "90") else None
                irows.append([fs, "kept open" if store == "warm" else "opened per op", f"{fill} %"]
                             + [c or "–" for c in cells]
                             + [f"≤ {target} (issue 5)" if target else "–",
                                verdict(typical_us(alloc) if alloc else None, target)])
    if irows:
        out += ["### host-local allocation on a /16 (p50 µs per operation)", "",
                "`allocate` = find a free address + persist the reservation; `release` = DEL of one attachment; "
                "`findById` = the lookup CHECK does. The target applies to allocate on tmpfs with the store kept "
                "open (find + persist, issue 5).", "",
                table(["fs", "store", "fill", "allocate", "release", "findById", "allocate target", "met"], irows), ""]
    # cluster-ipam against real etcd
    crows = []
    for members in ("1", "3"):
        for fill in ("0", "90"):
            a = get("ClusterIpamBenchmark.allocate", members=members, fill=fill)
            t = get("ClusterIpamBenchmark.threeNodes", members=members, fill=fill)
            if not a and not t:
                continue
            target = 2000 if (members, fill) == ("3", "90") else None
            crows.append([members, f"{fill} %", us(typical_us(a)) if a else "–",
                          f"≤ {target} (issue 17)" if target else "–", verdict(typical_us(a) if a else None, target),
                          f"{t['primaryMetric']['score']:.0f}" if t else "–"])
    if crows:
        out += ["### cluster-ipam against real etcd (in-process, warm JVM; etcd's data on tmpfs)", "",
                "`allocate` = one ADD through the plugin (config, etcd round trips, result), p50 µs; `threeNodes` = "
                "ADD + DEL pairs per second of 3 threads, each a node of its own. The /16 is filled with blocks "
                "claimed by other nodes.", "",
                table(["etcd members", "fill", "allocate p50 µs", "target", "met", "3 nodes, ADD+DEL per s"], crows),
                ""]
    # runtime exec and bridge in-process
    rrows = []
    for method in ("versionInfo", "versionInfoWithLaunchHelper", "processBuilderOnly", "addNetworkList",
                   "decodeVersionInfo"):
        e = next((v for (k, _), v in idx.items() if k == f"RuntimeExecBenchmark.{method}"), None)
        if e:
            rrows.append([f"RuntimeExecBenchmark.{method}", us(typical_us(e))])
    go_exec = {r["label"]: r for r in rows}
    for kind in ("bridge", "ptp"):
        for verb in ("add", "del"):
            e = get(f"BridgeInProcessBenchmark.{verb}", type=kind)
            if e:
                rrows.append([f"BridgeInProcessBenchmark.{verb} ({kind} + static, in-process)", us(typical_us(e))])
    if rrows:
        out += ["### Runtime exec and in-process plugins (p50 µs per call)", "", table(["benchmark", "µs"], rrows)]
        bridge_go = go_exec.get("bridge + static ADD") or go_exec.get("bridge + host-local ADD")
        inproc = get("BridgeInProcessBenchmark.add", type="bridge")
        if bridge_go and inproc:
            out += ["", f"jcni's bridge + static ADD in-process (a Java runtime linking the plugins) takes "
                    f"{typical_us(inproc) / 1000 / bridge_go['go']['median']:.2f}× the median of Go's exec'd "
                    f"{bridge_go['label']} in this run."]
        out.append("")
    # nftables
    nrows = []
    for method, what in (("transaction1Rule", "per rule, 1 rule per transaction"),
                         ("transaction8Rules", "per rule, 8 rules per transaction"),
                         ("transaction64Rules", "per rule, 64 rules per transaction"),
                         ("portmapAdd", "per transaction: a whole portmap ADD (19 messages)")):
        e = next((v for (k, _), v in idx.items() if k == f"NftablesBenchmark.{method}"), None)
        if e:
            nrows.append([f"NftablesBenchmark.{method}", what, us(typical_us(e))])
    if nrows:
        out += ["### nftables transactions over netlink (p50 µs, in a namespace the benchmark creates)", "",
                table(["benchmark", "score is", "µs"], nrows), ""]
    # codec
    crows = []
    for (k, _), e in sorted(idx.items()):
        if k.startswith("CodecBenchmark."):
            m = e["primaryMetric"]
            error = m["scoreError"] if isinstance(m["scoreError"], (int, float)) else float("nan")
            crows.append([k.split(".", 1)[1], us(typical_us(e)),
                          "–" if math.isnan(error) else f"± {us(to_us(error, m['scoreUnit']))}"])
    if crows:
        out += ["### Codec (mean µs per operation, ± JMH's 99.9 % error; – with a single iteration)", "",
                table(["benchmark", "µs", "error"], crows), ""]
    return out


def first_handle_section(path):
    rows, footer = [], ""
    with open(path) as f:
        for line in f:
            m = re.match(r"^(jvm|current|netns)\s+(on|off)\s+([\d.]+)\s+([\d.]+)\s*$", line)
            if m:
                rows.append(m.groups())
            elif line.startswith("("):
                footer = line.strip()
    if not rows:
        return []
    what = {"jvm": "empty main (baseline)", "current": "Netlink.open() + 1 request",
            "netns": "NetNs.create() + Netlink.open(ns) + 1 request"}
    return ["### netlink-ffm start-up: the first handle in a fresh JVM (FirstHandleStartup)", "",
            "Child JVMs with netlink-ffm as a named module, `-XX:TieredStopAtLevel=1 -XX:+UseSerialGC`, with and "
            f"without an AOT cache trained on one run; medians {footer}.", "",
            table(["work", "AOT cache", "process wall ms", "in-JVM ms (main to reply)"],
                  [[what[mode], aot, wall, inside] for mode, aot, wall, inside in rows]), ""]


# ------------------------------------------------------------------------------------------------- chart

def chart(rows, path):
    """Horizontal bars of the exec medians, Go above jcni for each measurement, p10-p90 whiskers, log scale."""
    rows = [r for r in rows if r["go"]["n"] and r["jcni"]["n"]]
    lo = min(min(r["go"]["p10"], r["jcni"]["p10"]) for r in rows)
    hi = max(max(r["go"]["p90"], r["jcni"]["p90"]) for r in rows)
    ticks = [m * 10 ** d for d in range(-3, 6) for m in (1, 2, 5)]
    t0 = max(t for t in ticks if t <= lo)
    t1 = min(t for t in ticks if t >= hi)
    ticks = [t for t in ticks if t0 <= t <= t1]
    left, width, bar, gap, top = 300, 520, 11, 12, 56
    height = top + len(rows) * (2 * bar + gap) + 50
    x = lambda v: left + (math.log10(max(v, t0)) - math.log10(t0)) / (math.log10(t1) - math.log10(t0)) * width
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 140}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="14" font-weight="bold">Exec latency, Go vs jcni (median, whiskers '
           f'p10–p90, log scale, ms)</text>',
           f'<rect x="{left}" y="30" width="12" height="10" fill="{GO_COLOR}"/><text x="{left + 16}" y="39">Go</text>',
           f'<rect x="{left + 50}" y="30" width="12" height="10" fill="{JCNI_COLOR}"/>'
           f'<text x="{left + 66}" y="39">jcni</text>']
    bottom = height - 40
    for v in ticks:
        xv = x(v)
        svg.append(f'<line x1="{xv:.1f}" y1="{top - 6}" x2="{xv:.1f}" y2="{bottom}" stroke="#ddd"/>')
        svg.append(f'<text x="{xv:.1f}" y="{bottom + 14}" text-anchor="middle">{v:g}</text>')
    svg.append(f'<text x="{left + width / 2}" y="{bottom + 30}" text-anchor="middle">ms</text>')
    y = top
    for r in rows:
        label = r["short"].replace("&", "&amp;").replace("<", "&lt;")
        svg.append(f'<text x="{left - 8}" y="{y + bar + 4}" text-anchor="end">{label}</text>')
        for side, color in (("go", GO_COLOR), ("jcni", JCNI_COLOR)):
            s = r[side]
            svg.append(f'<rect x="{left}" y="{y}" width="{x(s["median"]) - left:.1f}" height="{bar - 1}" '
                       f'fill="{color}"/>')
            cy = y + (bar - 1) / 2
            svg.append(f'<line x1="{x(s["p10"]):.1f}" y1="{cy}" x2="{x(s["p90"]):.1f}" y2="{cy}" stroke="#333"/>')
            text = ms(s["median"]) + (f" (×{r['ratio']:.2f})" if side == "jcni" else "")
            svg.append(f'<text x="{max(x(s["median"]), x(s["p90"])) + 4:.1f}" y="{y + bar - 2}" font-size="9">'
                       f'{text}</text>')
            y += bar
        y += gap
    svg.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(svg) + "\n")


# ------------------------------------------------------------------------------------------------- report

def netfilter_section(results, rows):
    """Issue 13: where the jcni chain's time goes. Its runtime and three plugins are four JVMs; each plugin's handler
    time comes from its JCNI_DEBUG line. Two readings of the JVM share: everything outside the plugins' handlers
    (JVM starts and exits, launcher scripts, decoding and encoding, the runtime's own work), and an estimate from
    this run's VERSION exec (a JVM start with next to no work: the jcni bridge launcher's median) times four."""
    suite = results["suites"].get("netfilter")
    if not suite:
        return []
    variants = {v["name"]: v for v in suite["variants"]}
    version = None
    if "version" in results["suites"]:
        vv = {v["name"]: v for v in results["suites"]["version"]["variants"]}
        if "jcni bridge VERSION" in vv:
            version = median(measured(vv["jcni bridge VERSION"]))
    jvms = suite.get("jvms", 4)
    out = ["", "### The netfilter chain: plugins' work and JVM start (issue 13)", "",
           f"bridge (ipMasq, hairpin, host-local) → tuning → portmap (two published ports), run by `dist/bin/jcni` "
           f"with each side's plugins; Go's 1.1.1 write iptables rules, jcni's nftables over netlink. The jcni side "
           f"is {jvms} JVMs (the runtime and three plugin launchers; host-local runs in bridge's). Issue 13's Go "
           f"anchors (through Go libcni): ADD {NF_GO_ANCHORS['ADD']} ms, DEL {NF_GO_ANCHORS['DEL']} ms. The targets "
           "(ADD ≤ 1.0×, DEL ≤ 0.7×) are for the resident plugin service; these are the plain launchers.", ""]
    table_rows = []
    for verb in ("ADD", "DEL"):
        go = variants[f"jcni runtime, go plugins: netfilter chain {verb}"]
        jc = variants[f"jcni runtime, jcni plugins: netfilter chain {verb}"]
        samples = [s for s in jc["samples"] if not s["warmup"] and s.get("handlers")]
        if not samples:
            continue
        wall = median(measured(jc))
        per = {k: median([s["handlers"].get(k, 0.0) for s in samples]) for k in ("bridge", "tuning", "portmap")}
        handlers = median([sum(s["handlers"].values()) for s in samples])
        outside = median([s["wall_ms"] - sum(s["handlers"].values()) for s in samples])
        estimate = f"{jvms * version:.0f} ms ({jvms * version / wall:.0%})" if version else "–"
        table_rows.append([verb, ms(median(measured(go))), ms(wall), f"{wall / median(measured(go)):.2f}",
                           ", ".join(f"{k} {v:.1f}" for k, v in per.items()), ms(handlers),
                           f"{outside:.0f} ms ({outside / wall:.0%})", estimate])
    out.append(table(["verb", "Go plugins ms", "jcni plugins ms", "jcni/Go", "jcni handlers ms (median each)",
                      "Σ handlers ms", "outside the handlers", f"{jvms} × jcni VERSION exec"], table_rows))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--results", required=True)
    p.add_argument("--start", required=True)
    p.add_argument("--end", required=True)
    p.add_argument("--jmh")
    p.add_argument("--jmh-options", default="")
    p.add_argument("--first-handle", help="FirstHandleStartup's output")
    p.add_argument("--options", default="", help="the compare.sh command line, shown in the report")
    p.add_argument("--host-check", default="not checked",
                   help="compare.sh's verdict on the real host's links, addresses, routes, namespaces, sysctls")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    with open(a.results) as f:
        results = json.load(f)
    with open(a.start) as f:
        start = json.load(f)
    with open(a.end) as f:
        end = json.load(f)
    jmh = None
    if a.jmh:
        with open(a.jmh) as f:
            jmh = json.load(f)
    os.makedirs(a.out, exist_ok=True)

    rows = exec_rows(results)
    chart(rows, os.path.join(a.out, "exec-latency.svg"))
    m, v = start["machine"], start["versions"]
    la = lambda x: " / ".join(f"{l:.2f}" for l in x["loadavg"])
    out = ["# jcni vs the Go reference: performance report", "",
           f"Generated by `benchmarks/compare.sh{' ' + a.options if a.options else ''}` from the measurements of one "
           "run; nothing in this file is typed by hand. Raw samples: `results.json` (and `jmh.json`) beside it.", "",
           "## Machine and versions", "",
           table(["", ""], [
               ["CPU", f"{m['cpu']}, {m['cores']} cores"], ["memory", f"{m['memory_gib']} GiB"],
               ["kernel", f"{m['kernel']} ({m['os']})"],
               ["real host after the measurements", a.host_check],
               ["load average (1/5/15 min)", f"start {la(start['start'])} ({start['start']['time']}); "
                                             f"end {la(end['end'])} ({end['end']['time']})"]]
               + [[k, f"`{val}`"] for k, val in v.items()]), "",
           "## How it was measured", "",
           f"- Rounds: {results['n']} measured per exec measurement ({results['n_full']} at 90 % of a /16), after "
           f"{results['warmup']} warm-up rounds (1 at 90 %) that are discarded. Each round runs Go's and jcni's exec "
           "back to back, alternating which goes first, so background load hits both alike.",
           "- An exec is timed by a Python runner from `posix_spawn` to the reaped exit (`wait4`), with the "
           "environment and stdin a runtime gives a plugin; stdout/stderr go to files. The runner and every plugin "
           "run inside a network namespace the script creates as the bridge's \"host\"; containers are namespaces "
           "it creates too; the real host is checked unchanged at the end.",
           "- jcni's plugins run from `dist/cni/bin` (jlink image with its AOT caches), Go's from `/usr/lib/cni`. "
           "jcni's bridge delegates to jcni's host-local in-process; Go's bridge execs Go's host-local. jcni's bridge "
           "runs with `JCNI_DEBUG=1` for its phase line.",
           "- The runtime rows alternate blocks of calls instead: Go libcni (`libcni-driver bench-exec`, a Go "
           "process per block) and jcni's `CniRuntime` (one long-lived JVM, `ExecLoop`), both execing the same "
           f"trivial Go plugin, {results['suites'].get('runtime', {}).get('block', '–')} calls per block; the first "
           "block of each is warm-up.",
           "- Spread: p10–p90 of the measured samples. Ratio: jcni median / Go median, with a 90 % bootstrap "
           "interval. Targets come from the issues; *met* is computed from the ratio's point estimate.", ""]
    out += exec_section(results, rows)
    out += hyperfine_section(results)
    out += phases_section(rows)
    out += netfilter_section(results, rows)
    out += ["", "## Chart", "", "![exec latency, Go vs jcni](exec-latency.svg)", ""]
    if jmh is not None:
        out += jmh_section(jmh, a.jmh_options, rows)
    if a.first_handle:
        out += first_handle_section(a.first_handle)
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    # The console gets the headline table, for quick looks during development.
    section = exec_section(results, rows)
    print(section[2])


if __name__ == "__main__":
    main()
