#!/usr/bin/env python3
"""interleaved.py <variants.json> [rounds]: times exec'd commands round-robin (each round runs every variant once,
so background load hits all alike) and prints, per variant, the wall-clock median, p10 and min, the ratio of its
median to the first variant's, and the median CPU time (user + sys of the child, from wait4).

A variant: {"name", "cmd": [argv], "env": {extra}, "stdin": file or null, "prepare": shell command run untimed
before each timed run, "rc": expected exit status (0)}. The first 3 rounds are warm-up."""
import json
import os
import statistics
import subprocess
import sys
import time

variants = json.load(open(sys.argv[1]))
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
wall = {v["name"]: [] for v in variants}
cpu = {v["name"]: [] for v in variants}
for r in range(rounds + 3):
    for v in variants:
        env = dict(os.environ)
        env.update(v.get("env", {}))
        if v.get("prepare"):
            subprocess.run(v["prepare"], shell=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stdin = open(v["stdin"], "rb") if v.get("stdin") else subprocess.DEVNULL
        start = time.perf_counter()
        p = subprocess.Popen(v["cmd"], env=env, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != v.get("rc", 0):
            print("unexpected exit status %d: %s" % (os.waitstatus_to_exitcode(status), v["name"]), file=sys.stderr)
        if r >= 3:
            wall[v["name"]].append(elapsed * 1000)
            cpu[v["name"]].append((usage.ru_utime + usage.ru_stime) * 1000)
base = statistics.median(wall[variants[0]["name"]])
for v in variants:
    t = sorted(wall[v["name"]])
    median = statistics.median(t)
    print("  %-36s median %8.2f ms  p10 %8.2f  min %8.2f  x%5.1f  | cpu median %8.2f ms" % (
        v["name"], median, t[len(t) // 10], t[0], median / base, statistics.median(cpu[v["name"]])))
