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

NF_ADD = "bridge(ipMasq) → tuning → portmap ADD, run by `jcni` (each side's plugins)"
NF_DEL = "bridge(ipMasq) → tuning → portmap DEL, run by `jcni` (each side's plugins)"
# Issue 13's anchors for that chain with Go's plugins, measured through Go libcni before jcni had portmap.
NF_GO_ANCHORS = {"ADD": 88, "DEL": 190}
CL_ADD = "cluster-ipam ADD, 1 etcd member (anchor: Go host-local ADD; Go has no etcd IPAM)"
CL_DEL = "cluster-ipam DEL, 1 etcd member (anchor: Go host-local DEL)"
CTRD_RUN = "containerd CRI RunPodSandbox, example network (bridge → portmap → bandwidth)"
CTRD_STOP = "containerd CRI StopPodSandbox + RemovePodSandbox, example network"
CTRD_HOW = ("- The containerd rows: Debian's containerd 1.6, one per side, each in a node of its own (a network "
           "namespace and a mount namespace, the it module's containerd harness) with the side's plugins in "
           "/opt/cni/bin, driven through its CRI API as a kubelet does (the CRI client times the gRPC call alone). "
           "Each round starts a pod on every side (RunPodSandbox: runc starts its sandbox, then the CNI ADD of "
           "loopback and the example network, bridge → portmap → bandwidth, with a host port and the bandwidth "
           "annotations), then stops (the DELs) and removes it (containerd sends the DELs again, without netns); the "
           "svc side's plugin service runs in its node's mount namespace. Warm-up: at least 10 pods per side. Most "
           "of a pod's time is containerd's and runc's, the same on every side.")

# (suite, Go variant, jcni variant, jcni-via-service variant or None, label, [(side, target ratio, source)]); side
# "jcni" is the plain launcher, "svc" the service. The chart's labels are in SHORT.
EXEC_ROWS = [
    ("version", "go host-local VERSION", "jcni host-local VERSION", "svc host-local VERSION",
     "VERSION exec (host-local)", [("jcni", 10, "issue 5"), ("svc", 0.8, "issue 14")]),
    ("version", "go bridge VERSION", "jcni bridge VERSION", "svc bridge VERSION", "VERSION exec (bridge)",
     [("svc", 0.8, "issue 14")]),
    ("version", "go host-local VERSION", "jcni host-local VERSION, AOT cache off", None,
     "VERSION exec (host-local), jcni without its AOT cache", []),
    ("host-local", "go host-local ADD", "jcni host-local ADD", "svc host-local ADD", "host-local ADD, empty /16",
     [("jcni", 8, "issue 5"), ("svc", 1.0, "issue 14")]),
    ("host-local", "go host-local DEL", "jcni host-local DEL", "svc host-local DEL", "host-local DEL, empty /16", []),
    ("host-local-90", "go host-local ADD", "jcni host-local ADD", "svc host-local ADD",
     "host-local ADD, 90 % of a /16", [("jcni", 8, "issue 5")]),
    ("host-local-90", "go host-local DEL", "jcni host-local DEL", "svc host-local DEL",
     "host-local DEL, 90 % of a /16", []),
    ("cluster-ipam", "go host-local ADD", "jcni cluster-ipam ADD", "svc cluster-ipam ADD", CL_ADD, []),
    ("cluster-ipam", "go host-local DEL", "jcni cluster-ipam DEL", "svc cluster-ipam DEL", CL_DEL, []),
    ("bridge", "go bridge ADD", "jcni bridge ADD", "svc bridge ADD", "bridge + host-local ADD",
     [("jcni", 3, "issue 6"), ("jcni", 8, "issue 14"), ("svc", 0.7, "issue 14")]),
    ("bridge", "go bridge DEL", "jcni bridge DEL", "svc bridge DEL", "bridge + host-local DEL",
     [("jcni", 2, "issue 6"), ("svc", 1.0, "issue 14")]),
    ("bridge-static", "go bridge ADD", "jcni bridge ADD", "svc bridge ADD", "bridge + static ADD", []),
    ("bridge-static", "go bridge DEL", "jcni bridge DEL", "svc bridge DEL", "bridge + static DEL", []),
    ("ptp", "go ptp ADD", "jcni ptp ADD", "svc ptp ADD", "ptp + host-local ADD", []),
    ("ptp", "go ptp DEL", "jcni ptp DEL", "svc ptp DEL", "ptp + host-local DEL", []),
    ("chain", "jcni runtime, go plugins: ADD", "jcni runtime, jcni plugins: ADD",
     "jcni runtime, jcni plugins via service: ADD", "bridge → tuning chain ADD, run by `jcni` (each side's plugins)",
     []),
    ("chain", "jcni runtime, go plugins: DEL", "jcni runtime, jcni plugins: DEL",
     "jcni runtime, jcni plugins via service: DEL", "bridge → tuning chain DEL, run by `jcni` (each side's plugins)",
     []),
    ("netfilter", "jcni runtime, go plugins: netfilter chain ADD", "jcni runtime, jcni plugins: netfilter chain ADD",
     "jcni runtime, jcni plugins via service: netfilter chain ADD", NF_ADD, [("svc", 1.0, "issue 13")]),
    ("netfilter", "jcni runtime, go plugins: netfilter chain DEL", "jcni runtime, jcni plugins: netfilter chain DEL",
     "jcni runtime, jcni plugins via service: netfilter chain DEL", NF_DEL, [("svc", 0.7, "issue 13")]),
    ("bandwidth", "jcni runtime, go plugins: bandwidth ADD", "jcni runtime, jcni plugins: bandwidth ADD",
     "jcni runtime, jcni plugins via service: bandwidth ADD",
     "bridge → bandwidth chain ADD, run by `jcni` (each side's plugins)", []),
    ("bandwidth", "jcni runtime, go plugins: bandwidth DEL", "jcni runtime, jcni plugins: bandwidth DEL",
     "jcni runtime, jcni plugins via service: bandwidth DEL",
     "bridge → bandwidth chain DEL, run by `jcni` (each side's plugins)", []),
    ("containerd", "go RunPodSandbox", "jcni RunPodSandbox", "svc RunPodSandbox", CTRD_RUN,
     [("svc", 1.0, "issue 22")]),
    ("containerd", "go StopPodSandbox + RemovePodSandbox", "jcni StopPodSandbox + RemovePodSandbox",
     "svc StopPodSandbox + RemovePodSandbox", CTRD_STOP, [("svc", 1.0, "issue 22")]),
    ("containerd", "go StopPodSandbox", "jcni StopPodSandbox", "svc StopPodSandbox",
     "containerd CRI StopPodSandbox (its DEL, the pod's namespace still there)", []),
    ("containerd", "go RemovePodSandbox", "jcni RemovePodSandbox", "svc RemovePodSandbox",
     "containerd CRI RemovePodSandbox (a second DEL, CNI_NETNS=\"\")", []),
    ("runtime", "go version", "jcni version", None,
     "runtime exec overhead: VERSION of a trivial Go plugin (Go libcni vs jcni CniRuntime)",
     [("jcni", 1.2, "issue 3")]),
    ("runtime", "go version", "jcni version-helper", None,
     "runtime exec overhead, jcni with 1 pre-started launch helper", [("jcni", 1.2, "issue 3")]),
    ("runtime", "go version", "jcni version-native-helper", None,
     "runtime exec overhead, jcni with 1 pre-started native launch helper", [("jcni", 1.2, "issue 14")]),
    ("runtime", "go add", "jcni add", None, "runtime list ADD of a trivial Go plugin, with result cache", []),
]
SHORT = {
    "VERSION exec (host-local)": "VERSION (host-local)",
    "VERSION exec (bridge)": "VERSION (bridge)",
    "VERSION exec (host-local), jcni without its AOT cache": "VERSION (host-local), jcni no AOT cache",
    "host-local ADD, empty /16": "host-local ADD, empty /16",
    "host-local DEL, empty /16": "host-local DEL, empty /16",
    "host-local ADD, 90 % of a /16": "host-local ADD, 90 % of /16",
    "host-local DEL, 90 % of a /16": "host-local DEL, 90 % of /16",
    CL_ADD: "cluster-ipam ADD (vs Go host-local)",
    CL_DEL: "cluster-ipam DEL (vs Go host-local)",
    "bridge + host-local ADD": "bridge + host-local ADD",
    "bridge + host-local DEL": "bridge + host-local DEL",
    "bridge + static ADD": "bridge + static ADD",
    "bridge + static DEL": "bridge + static DEL",
    "ptp + host-local ADD": "ptp + host-local ADD",
    "ptp + host-local DEL": "ptp + host-local DEL",
    "bridge → tuning chain ADD, run by `jcni` (each side's plugins)": "chain ADD by jcni",
    "bridge → tuning chain DEL, run by `jcni` (each side's plugins)": "chain DEL by jcni",
    NF_ADD: "netfilter chain ADD by jcni",
    NF_DEL: "netfilter chain DEL by jcni",
    "bridge → bandwidth chain ADD, run by `jcni` (each side's plugins)": "bandwidth chain ADD by jcni",
    "bridge → bandwidth chain DEL, run by `jcni` (each side's plugins)": "bandwidth chain DEL by jcni",
    "runtime exec overhead: VERSION of a trivial Go plugin (Go libcni vs jcni CniRuntime)":
        "runtime exec: Go libcni vs CniRuntime",
    "runtime exec overhead, jcni with 1 pre-started launch helper": "runtime exec, 1 launch helper",
    "runtime exec overhead, jcni with 1 pre-started native launch helper": "runtime exec, 1 native helper",
    "runtime list ADD of a trivial Go plugin, with result cache": "runtime list ADD + cache",
    CTRD_RUN: "containerd RunPodSandbox",
    CTRD_STOP: "containerd Stop + RemovePodSandbox",
    "containerd CRI StopPodSandbox (its DEL, the pod's namespace still there)": "containerd StopPodSandbox",
    "containerd CRI RemovePodSandbox (a second DEL, CNI_NETNS=\"\")": "containerd RemovePodSandbox",
}
# Issue 5: host-local ADD "must not grow with the fill". Read here as: jcni's median at 90 % at most this many times
# its median on an empty /16 in the same rounds (the noise between two exec rows on this machine is of that order).
FILL_GROWTH_MAX = 1.25
GO_COLOR, JCNI_COLOR, SVC_COLOR = "#00add8", "#e76f00", "#6a3d9a"
SIDE_NAMES = {"jcni": "jcni", "svc": "service"}


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
    for suite, go_name, jcni_name, svc_name, label, targets in EXEC_ROWS:
        if suite not in suites:
            continue
        variants = {v["name"]: v for v in suites[suite]["variants"]}
        if go_name not in variants or jcni_name not in variants:
            continue
        go, jcni, svc = variants[go_name], variants[jcni_name], variants.get(svc_name) if svc_name else None
        gw = measured(go)
        paired = suite != "runtime"
        row = {"suite": suite, "label": label, "short": SHORT.get(label, label), "go": summary(gw),
               "targets": targets,
               "go_rss": summary([kb / 1024 for kb in measured(go, "rss_kb")]) if measured(go, "rss_kb") else None,
               "go_cpu": summary(measured(go, "cpu_ms")) if measured(go, "cpu_ms") else None}
        for side, variant in (("jcni", jcni), ("svc", svc)):
            if variant is None:
                row[side] = None
                continue
            w = measured(variant)
            s = summary(w)
            row[side] = s
            row[side + "_ratio"] = s["median"] / row["go"]["median"]
            row[side + "_interval"] = ratio_interval(gw, w, paired and len(gw) == len(w))
            row[side + "_rss"] = summary([kb / 1024 for kb in measured(variant, "rss_kb")]) \
                if measured(variant, "rss_kb") else None
            row[side + "_cpu"] = summary(measured(variant, "cpu_ms")) if measured(variant, "cpu_ms") else None
            row[side + "_phases"] = [p.get("phases") for p in variant["samples"] if not p["warmup"]
                                     and p.get("phases")]
        row["ratio"] = row["jcni_ratio"]
        rows.append(row)
    return rows


def ratio_cell(r, side):
    if r.get(side) is None:
        return "–"
    return f"{r[side + '_ratio']:.2f} ({r[side + '_interval'][0]:.2f}–{r[side + '_interval'][1]:.2f})"


def target_cells(r):
    if not r["targets"]:
        return "–", "–"
    text, met = [], []
    for side, target, source in r["targets"]:
        text.append(f"{SIDE_NAMES[side]} ≤ {target}× ({source})")
        value = r.get(side + "_ratio")
        met.append(f"{SIDE_NAMES[side]} {target}×: " + verdict(value, target))
    return "; ".join(text), "; ".join(met)


def exec_section(results, rows):
    out = ["## Exec latency, interleaved (Go, jcni and jcni via the service in the same rounds)", "",
           "*jcni*: `dist/cni/bin/<type>` with no service (`JCNI_SERVICE_SOCKET=off`: the client runs the plugin in a "
           "JVM of its own, as a runtime gets it without `jcni serve`). *via service*: the same client with `jcni "
           "serve` running, which answers the call.", ""]
    out.append(table(
        ["measurement", "n", "Go median (p10–p90) ms", "jcni median (p10–p90) ms", "jcni/Go (90 % CI)",
         "via service median (p10–p90) ms", "service/Go (90 % CI)", "targets", "met"],
        [[r["label"], r["go"]["n"], spread(r["go"]), spread(r["jcni"]), ratio_cell(r, "jcni"),
          spread(r["svc"]) if r["svc"] else "–", ratio_cell(r, "svc")] + list(target_cells(r))
         for r in rows]))
    growth = fill_growth(results)
    if growth:
        out += ["", "Fill independence (issue 5: host-local ADD at 90 % of a /16 must not grow with the fill; read "
                f"here as at most {FILL_GROWTH_MAX}× the median on an empty /16 measured in the same rounds):", "",
                table(["implementation", "ADD median empty /16 ms", "ADD median 90 % ms", "90 % / empty", "met"],
                      [[name, ms(growth[side][0]), ms(growth[side][1]), f"{growth[side][2]:.2f}",
                        "–" if side == "go" else verdict(growth[side][2], FILL_GROWTH_MAX)]
                       for side, name in (("go", "Go"), ("jcni", "jcni"), ("svc", "jcni via service"))
                       if side in growth])]
    with_rss = [r for r in rows if r["go_rss"] and r.get("jcni_rss")]
    if with_rss:
        out += ["", "### Peak RSS and CPU time per exec", "",
                "Peak RSS is `ru_maxrss` from `wait4`: the largest process of the exec's tree (for the chain rows that "
                "is usually the `jcni` runtime's JVM, the same on all sides). The runner spawns with `vfork`, and the "
                "kernel counts the runner's own memory (~13 MiB of Python) into a child's `ru_maxrss`: small "
                "programs (Go's plugins, the client) read as that much here; the client's own peak is measured "
                "apart (section *Plugin service*). CPU is user + system time of the exec's tree (for the service "
                "column: the client's only; the service's CPU is not in it). Medians.", "",
                table(["measurement", "Go RSS MiB", "jcni RSS MiB", "jcni/Go", "Go CPU ms", "jcni CPU ms",
                       "via service: client CPU ms"],
                      [[r["label"], f"{r['go_rss']['median']:.1f}", f"{r['jcni_rss']['median']:.1f}",
                        f"{r['jcni_rss']['median'] / r['go_rss']['median']:.1f}", ms(r["go_cpu"]["median"]),
                        ms(r["jcni_cpu"]["median"]),
                        ms(r["svc_cpu"]["median"]) if r.get("svc_cpu") else "–"] for r in with_rss])]
    return out


def fill_growth(results):
    """Per side: (ADD median on an empty /16, at 90 %, their ratio), from the host-local-90 suite's rounds (its
    control variants ran on an empty /16 in the same rounds)."""
    suite = results["suites"].get("host-local-90")
    if not suite:
        return None
    variants = {v["name"]: v for v in suite["variants"]}
    growth = {}
    for side in ("go", "jcni", "svc"):
        control = variants.get(f"{side} host-local ADD, empty /16 (control)")
        if not control:
            if side == "svc":
                continue
            return None
        empty, full = median(measured(control)), median(measured(variants[f"{side} host-local ADD"]))
        growth[side] = (empty, full, full / empty)
    return growth


# The chains run by `jcni`, in report order: suite -> what the report calls it.
CHAINS = {"chain": "bridge → tuning", "netfilter": "bridge(ipMasq) → tuning → portmap",
          "bandwidth": "bridge → bandwidth"}
CHAIN_SIDES = (("go", "go plugins", "Go plugins"), ("jcni", "jcni plugins", "jcni plugins, exec'd"),
               ("svc", "jcni plugins via service", "jcni plugins via service"))


def jvm_yardstick(results):
    """A JVM start with next to no work: the median of jcni's plain bridge VERSION exec, from the netfilter suite's
    rounds if it ran (its yardstick variant), else from the version suite's; None if neither ran."""
    for suite, name in (("netfilter", "jcni bridge VERSION (JVM start yardstick)"), ("version", "jcni bridge VERSION")):
        variants = {v["name"]: v for v in results["suites"].get(suite, {}).get("variants", [])}
        if name in variants and measured(variants[name]):
            return median(measured(variants[name])), suite
    return None, None


def chains_section(results):
    """Where the chains' time goes. Every side's chain is run by the same runtime (`dist/bin/jcni`, one JVM); each
    jcni plugin's handler time comes from its JCNI_DEBUG timing line, which the runtime passes through. Exec'd, each
    jcni plugin is a JVM of its own: its start is estimated with this run's plain VERSION exec (jvm_yardstick)."""
    yardstick, source = jvm_yardstick(results)
    rows = []
    for suite, what in CHAINS.items():
        if suite not in results["suites"]:
            continue
        variants = {v["name"]: v for v in results["suites"][suite]["variants"]}
        prefix = "netfilter chain " if suite == "netfilter" else "bandwidth " if suite == "bandwidth" else ""
        for verb in ("ADD", "DEL"):
            names = {side: f"jcni runtime, {label}: {prefix}{verb}" for side, label, _ in CHAIN_SIDES}
            if any(n not in variants for n in names.values()):
                continue
            go = median(measured(variants[names["go"]]))
            for side, _, title in CHAIN_SIDES:
                v = variants[names[side]]
                wall = median(measured(v))
                row = [f"{what} {verb}", title, ms(wall), f"{wall / go:.2f}"]
                samples = [x for x in v["samples"] if not x["warmup"] and x.get("handlers")]
                if side == "go" or not samples:
                    rows.append(row + ["–"] * 5)
                    continue
                plugins = list(samples[0]["handlers"])
                per = {k: median([x["handlers"].get(k, 0.0) for x in samples]) for k in plugins}
                total = median([sum(x["handlers"].values()) for x in samples])
                outside = median([x["wall_ms"] - sum(x["handlers"].values()) for x in samples])
                row += [", ".join(f"{k} {ms(t)}" for k, t in per.items()), ms(total),
                        f"{ms(outside)} ({outside / wall:.0%})"]
                if side == "jcni" and yardstick:
                    starts = len(plugins) * yardstick
                    row += [f"{ms(starts)} ({starts / wall:.0%})", f"{(wall - starts) / go:.2f}"]
                else:
                    row += ["none: the service's JVM is warm" if side == "svc" else "–", "–"]
                rows.append(row)
    if not rows:
        return []
    out = ["", "### The chains run by `jcni`: the plugins' work, the JVM starts and the rest", "",
           "Each side's chain is run by the same runtime, `dist/bin/jcni add|del` (a JVM, with its AOT cache, on every "
           "side, Go's included). jcni's plugins run with `JCNI_DEBUG=1`; the runtime passes their stderr through, "
           "and each plugin's timing line gives its handler's time (bridge's includes its in-process host-local). "
           "*Outside the handlers* is the wall median minus theirs: the runtime's JVM and work, and per plugin the "
           "exec of the client and then either a JVM start, the skel's decoding and the JVM's exit (exec'd) or the "
           "socket round trip (via service). Exec'd, each plugin's handler also runs cold (interpreted code, the first "
           "FFM downcalls), which the service's warm JVM does not: compare the two handler columns."]
    if yardstick:
        out += ["", f"*Plugin JVM starts* estimates the exec'd side's JVM starts as one jcni plain bridge VERSION exec "
                f"({ms(yardstick)} ms median, from the {source} suite's rounds: a JVM start and exit with next to no "
                "work) per plugin of the chain; the last column is the ratio to Go with that taken away."]
    out += ["", table(["chain, verb", "side", "wall median ms", "/Go", "handlers ms (median each)",
                       "Σ handlers ms", "outside the handlers ms (share)", "plugin JVM starts ms (share)",
                       "/Go without them"], rows)]
    if "netfilter" in results["suites"]:
        out += ["", f"The netfilter chain is issue 13's: bridge with `ipMasq` and `hairpinMode`, tuning, portmap with "
                "two published ports (tcp 8080, udp 5353 through `CAP_ARGS`); Go's 1.1.1 write iptables rules "
                "(iptables-nft), jcni's nftables over netlink, all in the bench host namespace. Its targets (jcni "
                "ADD ≤ 1.0×, DEL ≤ 0.7× Go) apply through the resident plugin service, so they are judged on the "
                "service column of the exec table; the plain launchers' ratio and its JVM-start share are above. Issue "
                "13's Go "
                f"anchors, through Go libcni before jcni had portmap: ADD {NF_GO_ANCHORS['ADD']} ms, DEL "
                f"{NF_GO_ANCHORS['DEL']} ms."]
    return out


def service_path_section(results):
    """The proof that the svc side went through the service: per suite, the calls the service logged (measure.py
    checked them equal to the calls the svc execs make), and the variants whose every exec said how it ran."""
    rows = []
    for suite, data in results["suites"].items():
        # The containerd suite's svc side uses a service of its own, in its node's mount namespace.
        calls = data.get("own_service_calls", data.get("service_calls"))
        if calls is None:
            continue
        checked = {}
        for v in data.get("variants", []):
            if v.get("mode_checked"):
                checked[v["mode_checked"]] = checked.get(v["mode_checked"], 0) + len(v["samples"])
        rows.append([suite, sum(calls.values()) or "0 (no svc side)",
                     ", ".join(f"{k} {n}" for k, n in sorted(calls.items())) or "–",
                     "; ".join(f"{n} × “{mode}”" for mode, n in checked.items()) or "–"])
    if not rows:
        return []
    return ["", "### The service side went through the service", "",
            "A client that finds no service runs its JVM launcher without a word, so `measure.py` checks it: the "
            "service runs with `JCNI_DEBUG=1` and logs a line per call; after each suite the calls it logged must be "
            "exactly those the suite's svc execs make (one per plugin exec'd, warm-up and untimed execs included), or "
            "the run stops. Where jcni's plugins run with `JCNI_DEBUG=1`, every exec's debug lines must also "
            "say how each jcni plugin ran (“<type>: ADD via service, pid N” on the service side, “exec” on the "
            "plain one).", "",
            table(["suite", "calls the service ran", "by command and plugin",
                   "execs (warm-up included) whose debug lines said"],
                  rows)]


def phases_section(rows):
    out = []
    for r in rows:
        for side, what in (("jcni", "exec'd"), ("svc", "via service")):
            phases = r.get(side + "_phases")
            if not phases:
                continue
            keys = []
            for p in phases:
                keys += [k for k in p if k not in keys]
            med = {k: median([p.get(k, 0.0) for p in phases]) for k in keys}
            handler = med.pop("handler", None)
            if handler is None:
                continue
            if not out:
                out = ["", "### Where jcni's time goes (JCNI_DEBUG=1 phase lines, medians, ms)", "",
                       "The handler's phases come from the plugin's own timing line; *outside the handler* is the "
                       "exec's wall median minus the handler's: exec'd, JVM start and exit, the launcher, the skel's "
                       "environment and stdin decoding, result encoding; via the service, the client's exec, the "
                       "socket round trip and the same decoding and encoding in the service's warm JVM.", ""]
            parts = "".join(f"{k} {v:.1f}, " for k, v in med.items())[:-2] + "; " if med else ""
            out.append(f"- **{r['label']}, {what}** (wall {ms(r[side]['median'])}): {parts}handler "
                       f"{handler:.1f}; outside the handler {r[side]['median'] - handler:.1f}")
    return out


def service_section(results):
    svc = results["suites"].get("service")
    if not svc:
        return []
    memory = svc["memory"]
    first, last = memory[0], memory[-1]
    mid = [m for m in memory if m["calls"] >= svc["calls"] // 2]
    half = mid[0] if mid else last
    out = ["", "## Plugin service", "",
           f"The service (`jcni serve`, default JVM flags of `dist/bin/jcni serve`) served {svc['calls']} bridge + "
           "host-local ADD/DEL pairs through the clients, one pair at a time, before the latency suites (this is also "
           "its warm-up). Its resident memory (`VmRSS`, and the peak `VmHWM`) along the way:", "",
           table(["pairs done", "seconds", "VmRSS MiB", "VmHWM MiB"],
                 [[m["calls"], f"{m['seconds']:.0f}", f"{m['VmRSS'] / 1024:.1f}", f"{m['VmHWM'] / 1024:.1f}"]
                  for m in memory]), "",
           table(["figure", "value", "target", "met"],
                 [["service RSS after all pairs", f"{last['VmRSS'] / 1024:.1f} MiB", "≤ 150 MiB (issue 14)",
                   verdict(last["VmRSS"] / 1024, 150)],
                  ["service RSS growth over the second half", f"{(last['VmRSS'] - half['VmRSS']) / 1024:+.1f} MiB "
                   f"({half['calls']} → {last['calls']} pairs)", "flat (issue 14)", "–"],
                  ["service RSS after its first call", f"{first['VmRSS'] / 1024:.1f} MiB", "–", "–"]])]
    client = svc["client_rss_kb"]
    rows = []
    for name in ("VERSION", "ADD", "DEL"):
        values = [kb / 1024 for kb in client.get(name, [])]
        if values:
            s = summary(values)
            rows.append([f"client peak RSS, {name} through the service", len(values), f"{s['median']:.2f}",
                         f"{max(values):.2f}", "≤ 2 MiB (issue 14)", verdict(max(values), 2)])
    if rows:
        out += ["", "The client's peak RSS, read by `rss-probe` (a static program that forks and execs the client and "
                "reads `ru_maxrss`; a child forked from it starts at a few hundred KiB, the floor of what it can "
                "report):", "",
                table(["figure", "n", "median MiB", "max MiB", "target", "met"], rows)]
    return out


COLD_BUCKETS = ((1, 1, "1", 2.0), (2, 20, "2–20", 0.7), (21, None, "21–", 0.5))


def cold_section(results):
    """The warm-up curve of a fresh service (issue 25), with and without its AOT cache, against Go's exec'd plugins
    run call by call beside it."""
    cold = results["suites"].get("cold")
    if not cold:
        return []
    calls = cold["calls"]
    by_name = {v["name"]: v for v in cold["variants"]}

    def samples(name, service, lo, hi):
        v = by_name[name]
        return [s["wall_ms"] for s in v["samples"]
                if s.get("service") == service and lo <= s["call"] <= (hi or calls)]

    rows = []
    for command in ("ADD", "DEL"):
        for service, label in (("aot", "AOT cache"), ("noaot", "no AOT cache"), ("nowarm", "AOT cache, no warm-up"),
                               ("booted", "AOT cache, warm-up ended")):
            if not any(v["name"] == f"svc, {label} bridge {command}" for v in cold["variants"]):
                continue  # a run before the no-warm-up variant existed
            for lo, hi, name, target in COLD_BUCKETS:
                if lo > calls:
                    continue
                go = samples(f"go bridge {command}", service, lo, hi)
                svc = samples(f"svc, {label} bridge {command}", service, lo, hi)
                r = median(svc) / median(go) if go and median(go) > 0 else None
                rows.append([f"{command}, service with {label}", name if hi != None else f"{lo}–{calls}", len(svc),
                             ms(median(go)), ms(median(svc)), f"{r:.2f}" if r else "–",
                             f"≤ {target}×" if command == "ADD" else "–",
                             verdict(r, target) if command == "ADD" else "–"])
    ready = cold.get("service_ready_ms", {})
    return ["", "## A fresh service: its first calls (cold)", "",
            f"{cold['rounds']} rounds; in each, services started fresh (`dist/bin/jcni serve` as shipped, its AOT "
            "cache required with `-XX:AOTMode=on`, with its own warm-up; the same without its cache, `-XX:AOTMode=off`; "
            "with its cache but without its warm-up, `--warm-up 0`; and as shipped, its first call made only once its own "
            "warm-up ended, as for a service started with the node rather than by socket activation), each serving "
            f"{calls} bridge + host-local ADD/DEL pairs of one attachment, one call at a time, the first as soon as its "
            "socket exists; Go's exec'd bridge ADD/DEL run beside each call (same call index, alternating which goes "
            "first). Medians of wall ms over the rounds; ratio = service / Go of the same calls (Go = 1.0). Targets: "
            "issue 25.", "",
            table(["command", "calls since start", "n", "Go ms", "service ms", "ratio", "target", "met"], rows), "",
            "Time from the service's exec to its socket, median ms: with its AOT cache "
            f"{ms(median(ready.get('aot', [])))}, without {ms(median(ready.get('noaot', [])))}"
            + (f", with its cache and no warm-up {ms(median(ready['nowarm']))}" if ready.get("nowarm") else "")
            + (f" (warm-up ended: socket at {ms(median(ready['booted']))})" if ready.get("booted") else "")
            + f" (n {len(ready.get('aot', []))}, {len(ready.get('noaot', []))}). Go ms is Go's exec'd bridge beside "
            "each service: beside the services that warm up it shows what their background warm-up costs another "
            "process on the same cores."]


def burst_section(results):
    """Pods started at once through Go libcni (issue 25)."""
    burst = results["suites"].get("burst")
    if not burst:
        return []
    names = {"go": "Go", "jcni": "jcni exec'd", "svc": "jcni service"}
    targets = {("ADD", "wall"): 0.35, ("DEL", "wall"): 0.2, ("ADD", "p99"): 0.5}
    rows = []
    for size in burst["sizes"]:
        for command in ("ADD", "DEL"):
            figures = {}
            for side in ("go", "jcni", "svc"):
                bs = [b for b in burst["bursts"] if b["size"] == size and b["command"] == command and b["side"] == side]
                if not bs:
                    continue
                pods = sorted(t for b in bs for t in b["pod_ms"])
                figures[side] = {"wall": median([b["wall_ms"] for b in bs]), "cpu": median([b["cpu_ms"] for b in bs]),
                                 "p50": percentile(pods, 0.5), "p99": percentile(pods, 0.99),
                                 "failed": sum(len(b["failed"]) for b in bs), "pods": sum(b["size"] for b in bs),
                                 "duplicates": sum(len(b.get("duplicates", {})) for b in bs),
                                 "walls": [b["wall_ms"] for b in bs], "load": [b["load1"] for b in bs]}
            go = figures.get("go")
            for side, f in figures.items():
                def rel(key):
                    return f"{f[key] / go[key]:.2f}" if go and go[key] > 0 else "–"
                met = []
                for key in ("wall", "p99"):
                    t = targets.get((command, key))
                    if side == "svc" and t and go:
                        met.append(f"{key} ≤ {t}×: {verdict(f[key] / go[key], t)}")
                rows.append([size, command, names[side], len(f["walls"]), ms(f["wall"]),
                             " / ".join(ms(w) for w in f["walls"]), rel("wall"), ms(f["p50"]), ms(f["p99"]), rel("p99"),
                             f"{f['cpu'] / 1000:.1f}", f"{f['failed']} of {f['pods']}"
                             + (f", **{f['duplicates']} addresses given twice**" if f["duplicates"] else ""),
                             " / ".join(f"{x:.1f}" for x in f["load"]), "; ".join(met) or "–"])
    out = ["", "## Pods started at once (burst)", "",
           "N pods started together, one Go libcni process per pod (`libcni-driver add`, as containerd runs go-cni per "
           "sandbox), each in a namespace of its own, on a network of bridge (ipMasq, hairpin, host-local) → portmap "
           "(a hostPort each) → firewall → tuning; when all have ended, N DELs at once. Sides: Go's plugins, jcni's "
           "exec'd (their JVM launchers), jcni's through the plugin service. Wall: first spawn to last exit; pod: one "
           "process's own time; CPU: all processes and what they exec'd (the service's own CPU is not in it). "
           "Ratios: / Go of the same size (medians over the rounds). Failures are "
           "counted, on every side (a failed pod's time is in the figures too). Load: the 1-minute load average "
           "after each burst.", "",
           table(["N", "command", "side", "rounds", "wall ms", "each round", "× Go", "pod p50 ms", "pod p99 ms",
                  "p99 × Go", "CPU s", "failed", "load", "target (issue 25)"], rows)]
    errors = [f"- {names[b['side']]} {b['command']} of {b['size']}, round {b['round']}, pod {f['pod']}: "
              f"{f['error'].strip()[:300]}" for b in burst["bursts"] for f in b["failed"]]
    if errors:
        out += ["", "Failures:", ""] + errors[:20]
    return out


METRICS_BUDGET = 1.03  # issue 28: with metrics on, the service's bridge ADD costs at most 3 % more


def metrics_section(metrics):
    """The service's bridge ADD/DEL with metrics on and off (issue 28; bench/metrics_cost.py, compare.sh's metrics
    suite): the figures as the script computed them from this run's samples."""
    samples = metrics["samples_ms"]
    rows = []
    for command in ("ADD", "DEL"):
        off, on = summary(samples[f"off {command}"]), summary(samples[f"on {command}"])
        r = metrics["ratios"][command]
        lo, hi = r["interval"]
        if command != "ADD":
            met = "–"
        elif hi <= METRICS_BUDGET:
            met = "**met**"
        elif lo > METRICS_BUDGET:
            met = "**not met**"
        else:
            met = f"unresolved (the interval holds {METRICS_BUDGET})"
        rows.append([f"bridge {command} via service", off["n"], spread(off), spread(on),
                     f"{r['median_ratio']:.3f} ({lo:.3f}–{hi:.3f})", f"≤ {METRICS_BUDGET}×" if command == "ADD"
                     else "–", met])
    cpu = metrics["cpu_ms_per_pair"]
    out = ["", "## Metrics on and off (issue 28)", "",
           "Two services of this dist, one with `--metrics-address` and one without, each on its own socket in a "
           "namespace of its own (`bench/metrics_cost.py`); every round runs a bridge + host-local ADD then DEL "
           "through each side's client, alternating which side goes first, while the metrics-on service is scraped "
           f"every {metrics['scrape_interval_s']} s ({metrics['scrapes']} scrapes answered). {metrics['n']} measured "
           f"rounds after {metrics['warmup']} warm-up. Wall ms of the client (fork, exec, the call, exit); ratio = "
           f"on / off of the medians, with a {metrics['ratios']['ADD']['confidence'] * 100:.0f} % bootstrap interval "
           "(the script's). Unlike the exec targets, *met* here needs the whole interval at or under the budget and "
           "*not met* all of it over; anything else is unresolved (more rounds, `--metrics-n`, or a quieter machine).",
           "",
           table(["measurement", "n", "metrics off median (p10–p90) ms", "metrics on median (p10–p90) ms",
                  "on/off (interval)", "target", "met"], rows), "",
           f"Service CPU time (user + system) per ADD/DEL pair: metrics off {cpu['off']:.3f} ms, on "
           f"{cpu['on']:.3f} ms."]
    return out


# Issue 29's targets at full size (10 nodes x 100): IPAM alone, and pods (bridge + cluster-ipam) through the services.
CLUSTER_TARGETS = {"ipam-alone": 3.0, "pods": 15.0, "alloc_p99_ms": 50.0}


# The paths an allocation takes in cluster_sim's results, in the report's order: the node's warm view, a read of etcd,
# a wait for another call's read.
ALLOC_PATHS = ("warm", "read", "wait")


def paths_text(paths):
    """The allocations' paths (cluster_sim's "paths"), "–" for results written before it."""
    if not paths:
        return "–"
    return " / ".join(str(paths.get(k, 0)) for k in ALLOC_PATHS)


def path_p99_text(by_path):
    """Each path's allocation p99 (cluster_sim's "alloc_ms_p99_by_path"), "–" for a path no allocation took and for
    results written before it."""
    if not by_path:
        return "–"
    return " / ".join("–" if by_path.get(k) is None else f"{by_path[k]:.1f}" for k in ALLOC_PATHS)


def etcd_priority_text(nice):
    """What priority the simulation gave the etcd members (results before --etcd-nice have none: the nodes' own)."""
    if not nice:
        return ("The etcd members ran at the nodes' priority, sharing the two cores with their load (in a cluster, "
                "etcd has machines of its own).")
    return (f"**The etcd members ran at nice {nice}** (`--cluster-etcd-nice`): their CPU came before the simulated "
            "nodes', standing in for the machines of their own they have in a cluster; the default run gives them "
            "the nodes' priority.")


def cluster_section(cluster):
    """The simulated cluster (issue 29; it/src/test/cluster/cluster_sim.py, compare.sh's cluster-scale suite): every
    scenario's ADD burst, failures, retry, DEL and the checks' verdict, with issue 29's targets where they apply."""
    n, p = cluster["nodes"], cluster["pods"]
    full = n * p == 1000
    ms = lambda v: "–" if v is None else f"{v:.1f}"
    rows = []
    for s in cluster["scenarios"]:
        add, dele, retry = s["add"], s["del"], s.get("retry")
        codes = ", ".join(f"{c or 'none'}: {k}" for c, k in sorted(add["codes"].items())) or "–"
        cpu = add.get("cpu_s") or {}
        jit = f" ({cpu['services_jit']:.1f})" if "services_jit" in cpu else ""
        cpu_text = (f"{cpu['services']:.1f}{jit} / {cpu['etcd']:.1f} / {cpu['machine']:.1f}" if cpu else "–")
        rows.append([s["name"], f"{add['ok']}/{add['calls']}", codes, f"{add['wall_s']:.2f}", add["per_s"],
                     f"{ms(add['alloc_ms_p50'])} / {ms(add['alloc_ms_p99'])}",
                     f"{ms(add.get('txn_ms_p50'))} / {ms(add.get('txn_ms_p99'))}", paths_text(add.get("paths")),
                     path_p99_text(add.get("alloc_ms_p99_by_path")),
                     f"{ms(add['pod_ms_p50'])} / {ms(add['pod_ms_p99'])}", cpu_text,
                     "–" if not retry else f"{retry['ok']}/{retry['calls']}",
                     f"{dele['ok']}/{dele['calls']} in {dele['wall_s']:.2f} s",
                     "passed" if not s["problems"] else "**FAILED**: " + "; ".join(s["problems"])[:300]])
    out = ["", "## Cluster IPAM at scale (issue 29)", "",
           f"A simulated cluster (`it/src/test/cluster/cluster_sim.py`, the same program as the it module's "
           f"ClusterScaleTest): a 3-member etcd in a namespace of its own; {n} nodes, each a namespace with its own "
           f"`jcni serve` and node name, reaching etcd over a veth; {p} pods per node started at once on every node, "
           f"each by a Go libcni process (`libcni-driver add`), bridge + cluster-ipam on one shared {cluster['subnet']} "
           f"(blocks /{cluster['block_size']}, dialTimeoutSeconds {cluster['dial_timeout_s']}, requestTimeoutSeconds "
           f"{cluster['request_timeout_s']}). `ipam-alone` is cluster-ipam's client exec'd without bridge, "
           f"{cluster['ipam_parallel']} at a time per node. {etcd_priority_text(cluster.get('etcd_nice'))} "
           "Wall: the first spawn to the last exit, all nodes; "
           "alloc: bridge's `ipam` phase (cluster-ipam's handler alone), from the plugins' `JCNI_DEBUG=1` lines; pod: "
           "a libcni process from spawn to exit; write: cluster-ipam's `txn` phase (its etcd writes); paths: how "
           "many allocations took the node's warm view, read etcd because the view could not serve them, or waited "
           "for another call's such read, and each path's allocation p99. Failed pods are ADDed again once the fault "
           "healed (retry), then every pod is DELeted. The checks: no address twice, every live pod's address in etcd "
           "under its own key, every failure a CNI error with code 11, nothing left after the DELs, the lost node's "
           "keys reclaimed. CPU: "
           "seconds of CPU during the ADD burst used by the nodes' services (in brackets, their JIT compilers' share), "
           "the etcd members and the whole machine "
           "(busy time of all cores: the rest is the pods' libcni processes, the plugin clients, the kernel, and "
           "whatever else ran on the machine); the warm-up rows warm the services' JIT and are not judged.", "",
           table(["scenario", "ADD ok", "failures (code: n)", "wall s", "pods/s", "alloc p50 / p99 ms",
                  "write p50 / p99 ms", "paths warm / read / wait", "alloc p99 by path ms", "pod p50 / p99 ms",
                  "CPU s services (JIT) / etcd / machine", "retry ok", "DEL", "checks"], rows), ""]
    for s in cluster["scenarios"]:
        f = s.get("fault")
        if f:
            details = ", ".join(f"{k} {v}" for k, v in f.items() if k not in ("what", "probe_messages"))
            out.append(f"- {s['name']}: {f['what']} ({details})")
    by = {s["name"]: s for s in cluster["scenarios"]}
    if full:
        t = []
        if "ipam-alone" in by:
            a = by["ipam-alone"]["add"]
            t.append(["1,000 allocations, IPAM alone", f"{a['wall_s']:.2f} s", f"≤ {CLUSTER_TARGETS['ipam-alone']} s",
                      "**met**" if a["wall_s"] <= CLUSTER_TARGETS["ipam-alone"] else "**not met**"])
        if "baseline" in by:
            a = by["baseline"]["add"]
            t.append(["1,000 pods, bridge + cluster-ipam", f"{a['wall_s']:.2f} s", f"≤ {CLUSTER_TARGETS['pods']} s",
                      "**met**" if a["wall_s"] <= CLUSTER_TARGETS["pods"] else "**not met**"])
            p99 = a["alloc_ms_p99"]
            t.append(["per-allocation p99", f"{ms(p99)} ms", f"≤ {CLUSTER_TARGETS['alloc_p99_ms']} ms",
                      "**met**" if p99 is not None and p99 <= CLUSTER_TARGETS["alloc_p99_ms"] else "**not met**"])
            t.append(["failures, duplicates without faults", f"{a['failed']}, {len(by['baseline']['etcd']['duplicates'])}",
                      "0, 0", "**met**" if a["failed"] == 0 and not by["baseline"]["etcd"]["duplicates"]
                      else "**not met**"])
        out += ["", table(["issue 29 target", "measured", "target", "met"], t)]
        if cluster.get("etcd_nice"):
            out += ["", f"These are not the default run's figures: etcd ran at nice {cluster['etcd_nice']}, ahead of "
                        "the simulated nodes on the machine's cores."]
    out += ["", f"Whole run {cluster['seconds']} s; cleanup {'complete' if cluster.get('cleanup_complete') else 'INCOMPLETE'}"
            + (f"; the run failed: {cluster['error']}" if cluster.get("error") else "") + "."]
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
            m = re.match(r"^(jvm|current|netns|next)\s+(on|off)\s+([\d.]+)\s+([\d.]+)\s*$", line)
            if m:
                rows.append(m.groups())
            elif line.startswith("("):
                footer = line.strip()
    if not rows:
        return []
    what = {"jvm": "empty main (baseline)", "current": "Netlink.open() + 1 request",
            "netns": "NetNs.create() + Netlink.open(ns) + 1 request",
            "next": "after one untimed handle, each of 5 more Netlink.open() + 1 request (in-JVM: per handle)"}
    return ["### netlink-ffm start-up: the first handle in a fresh JVM (FirstHandleStartup)", "",
            "Child JVMs with netlink-ffm as a named module, `-XX:TieredStopAtLevel=1 -XX:+UseSerialGC`, with and "
            f"without an AOT cache trained on one run; medians {footer}.", "",
            table(["work", "AOT cache", "process wall ms", "in-JVM ms (main to reply)"],
                  [[what[mode], aot, wall, inside] for mode, aot, wall, inside in rows]), ""]


# ------------------------------------------------------------------------------------------------- chart

def chart(rows, path):
    """Horizontal bars of the exec medians, Go above jcni for each measurement, p10-p90 whiskers, log scale."""
    rows = [r for r in rows if r["go"]["n"] and r["jcni"]["n"]]
    if not rows:
        return  # e.g. --suites service: no exec measured on both sides, nothing to chart
    sides = lambda r: [s for s in ("go", "jcni", "svc") if r.get(s)]
    lo = min(min(r[s]["p10"] for s in sides(r)) for r in rows)
    hi = max(max(r[s]["p90"] for s in sides(r)) for r in rows)
    ticks = [m * 10 ** d for d in range(-3, 6) for m in (1, 2, 5)]
    t0 = max(t for t in ticks if t <= lo)
    t1 = min(t for t in ticks if t >= hi)
    ticks = [t for t in ticks if t0 <= t <= t1]
    left, width, bar, gap, top = 300, 520, 11, 12, 56
    height = top + sum(len(sides(r)) * bar + gap for r in rows) + 50
    x = lambda v: left + (math.log10(max(v, t0)) - math.log10(t0)) / (math.log10(t1) - math.log10(t0)) * width
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 140}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="14" font-weight="bold">Exec latency, Go vs jcni (median, whiskers '
           f'p10–p90, log scale, ms)</text>',
           f'<rect x="{left}" y="30" width="12" height="10" fill="{GO_COLOR}"/><text x="{left + 16}" y="39">Go</text>',
           f'<rect x="{left + 50}" y="30" width="12" height="10" fill="{JCNI_COLOR}"/>'
           f'<text x="{left + 66}" y="39">jcni</text>',
           f'<rect x="{left + 110}" y="30" width="12" height="10" fill="{SVC_COLOR}"/>'
           f'<text x="{left + 126}" y="39">jcni via service</text>']
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
        for side, color in (("go", GO_COLOR), ("jcni", JCNI_COLOR), ("svc", SVC_COLOR)):
            s = r.get(side)
            if not s:
                continue
            svg.append(f'<rect x="{left}" y="{y}" width="{x(s["median"]) - left:.1f}" height="{bar - 1}" '
                       f'fill="{color}"/>')
            cy = y + (bar - 1) / 2
            svg.append(f'<line x1="{x(s["p10"]):.1f}" y1="{cy}" x2="{x(s["p90"]):.1f}" y2="{cy}" stroke="#333"/>')
            text = ms(s["median"]) + (f" (×{r[side + '_ratio']:.2f})" if side != "go" else "")
            svg.append(f'<text x="{max(x(s["median"]), x(s["p90"])) + 4:.1f}" y="{y + bar - 2}" font-size="9">'
                       f'{text}</text>')
            y += bar
        y += gap
    svg.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(svg) + "\n")


# ------------------------------------------------------------------------------------------------- report

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--results", required=True)
    p.add_argument("--start", required=True)
    p.add_argument("--end", required=True)
    p.add_argument("--jmh")
    p.add_argument("--jmh-options", default="")
    p.add_argument("--first-handle", help="FirstHandleStartup's output")
    p.add_argument("--metrics", help="the metrics suite's figures (bench/metrics_cost.py --json)")
    p.add_argument("--cluster-scale", help="the cluster-scale suite's results (it/src/test/cluster/cluster_sim.py)")
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
    metrics = None
    if a.metrics:
        with open(a.metrics) as f:
            metrics = json.load(f)
    cluster = None
    if a.cluster_scale:
        with open(a.cluster_scale) as f:
            cluster = json.load(f)
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
           "run; nothing in this file is typed by hand. Raw samples: `results.json` (and `jmh.json`, `metrics.json`, `cluster-scale.json`) beside it.", "",
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
           f"{results['warmup']} warm-up rounds (1 at 90 %) that are discarded. Each round runs the exec of each side "
           "(Go, jcni, jcni via the service) back to back, alternating which goes first, so background load hits "
           "all alike.",
           "- An exec is timed by a Python runner from `posix_spawn` to the reaped exit (`wait4`), with the "
           "environment and stdin a runtime gives a plugin; stdout/stderr go to files. The runner and every plugin "
           "run inside a network namespace the script creates as the bridge's \"host\"; containers are namespaces "
           "it creates too; the real host is checked unchanged at the end.",
           "- jcni's plugins run from `dist/cni/bin` (the plugin client; without a service it runs the JVM launcher "
           "of `dist/cni/jvm`: the jlink image with its AOT caches), Go's from `/usr/lib/cni`. jcni's bridge "
           "delegates to jcni's host-local in-process; Go's bridge execs Go's host-local. jcni's bridge runs with "
           "`JCNI_DEBUG=1` for its phase line. The service runs in the bench host namespace, as a node's would.",
           "- The chains (bridge → tuning; bridge(ipMasq, hairpin) → tuning → portmap with two published ports; "
           "bridge → bandwidth) are run by jcni's runtime CLI, `dist/bin/jcni add|del`, with each side's plugins "
           "(`--cni-path`): the runtime is the same JVM on every side, the plugins differ. cluster-ipam runs against "
           "one etcd member the script starts in the bench host namespace (data on tmpfs), paired in the same rounds "
           "with Go's host-local on an empty /16 as the anchor (Go has no etcd IPAM).",
           "- The runtime rows alternate blocks of calls instead: Go libcni (`libcni-driver bench-exec`, a Go "
           "process per block) and jcni's `CniRuntime` (one long-lived JVM, `ExecLoop`), both execing the same "
           f"trivial Go plugin, {results['suites'].get('runtime', {}).get('block', '–')} calls per block; the first "
           "block of each is warm-up.",
           "- Spread: p10–p90 of the measured samples. Ratio: jcni median / Go median, with a 90 % bootstrap "
           "interval. Targets come from the issues; *met* is computed from the ratio's point estimate.", ""]
    if "containerd" in results["suites"]:
        out.insert(next(i for i, line in enumerate(out) if line.startswith("- Spread")), CTRD_HOW)
    if rows:
        out += exec_section(results, rows)
    if metrics is not None:
        out += metrics_section(metrics)
    if cluster is not None:
        out += cluster_section(cluster)
    out += service_section(results)
    out += cold_section(results)
    out += burst_section(results)
    out += hyperfine_section(results)
    out += phases_section(rows)
    out += chains_section(results)
    out += service_path_section(results)
    if os.path.exists(os.path.join(a.out, "exec-latency.svg")):
        out += ["", "## Chart", "", "![exec latency, Go vs jcni](exec-latency.svg)", ""]
    if jmh is not None:
        out += jmh_section(jmh, a.jmh_options, rows)
    if a.first_handle:
        out += first_handle_section(a.first_handle)
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    # The console gets the headline table, for quick looks during development.
    if rows:
        print(exec_section(results, rows)[4])
    if metrics is not None:
        print(metrics_section(metrics)[4])
    if cluster is not None:
        print(cluster_section(cluster)[4])


if __name__ == "__main__":
    main()
