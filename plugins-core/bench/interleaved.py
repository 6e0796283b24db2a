#!/usr/bin/env python3
"""Interleaved exec timing: each round runs every variant once, so background load hits all alike.
Reports wall-clock median/p10/min and the median CPU time (user+sys of the child, from wait4)."""
import os, subprocess, sys, time, json, statistics
rounds = int(os.environ.get('ROUNDS', '40'))
variants = json.load(open(sys.argv[1]))
wall = {v['name']: [] for v in variants}; cpu = {v['name']: [] for v in variants}
for r in range(rounds + 3):
    for v in variants:
        env = dict(os.environ); env.update(v.get('env', {}))
        if v.get('prepare'):
            subprocess.run(v['prepare'], shell=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stdin = open(v['stdin'], 'rb') if v.get('stdin') else subprocess.DEVNULL
        t = time.perf_counter()
        p = subprocess.Popen(v['cmd'], env=env, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != v.get('rc', 0):
            print('unexpected rc', p.returncode, v['name'], file=sys.stderr)
        if r >= 3:
            wall[v['name']].append(dt * 1000); cpu[v['name']].append((ru.ru_utime + ru.ru_stime) * 1000)
base = None
for v in variants:
    t = sorted(wall[v['name']]); med = statistics.median(t)
    base = base or med
    print('%-34s wall median %7.2f ms p10 %7.2f min %7.2f (x%5.1f) | cpu median %7.2f ms' % (
        v['name'], med, t[len(t)//10], t[0], med / base, statistics.median(cpu[v['name']])))
