#!/usr/bin/env python3
"""Describes the machine and the versions under test, as JSON on stdout, for report.py.

    machine.py start --root R --java J --go-bin B     machine, versions, load average, time
    machine.py end                                    load average and time only

Everything is read from the system (/proc, uname, dpkg, the tools' own version output, git), never written by hand.
A value that cannot be read is reported as such ("unknown: <why>"), so the report shows the gap instead of a guess."""
import argparse
import json
import os
import platform
import subprocess
import time


def command(argv, cwd=None):
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unknown: {e}"
    text = (p.stdout or p.stderr).strip()
    return text if p.returncode == 0 and text else f"unknown: {' '.join(argv)} exited {p.returncode}"


def dpkg(package):
    return command(["dpkg-query", "-W", "-f=${Version}", package])


def load():
    with open("/proc/loadavg") as f:
        one, five, fifteen = f.read().split()[:3]
    return {"time": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "loadavg": [float(one), float(five), float(fifteen)]}


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown: no model name in /proc/cpuinfo"


def mem_total_gib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    return None


def release_file(path):
    values = {}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    values[k] = v.strip('"')
    except OSError:
        pass
    return values


def start(a):
    sha = command(["git", "rev-parse", "HEAD"], cwd=a.root)
    dirty = command(["git", "status", "--porcelain", "--untracked-files=no"], cwd=a.root)
    java = command([a.java, "-version"]).splitlines()
    image = command([os.path.join(a.root, "dist", "image", "bin", "java"), "-version"]).splitlines()
    return {
        "machine": {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "memory_gib": mem_total_gib(),
            "kernel": platform.release(),
            "os": release_file("/etc/os-release").get("PRETTY_NAME", "unknown"),
        },
        "versions": {
            "jcni": sha + (" (with uncommitted changes)" if dirty and not dirty.startswith("unknown") else ""),
            "jdk (build)": java[0] + (f" ({java[1]})" if len(java) > 1 else ""),
            "jdk (plugin image, dist/image)": image[1] if len(image) > 1 else image[0],
            "Go plugins (containernetworking-plugins)": dpkg("containernetworking-plugins"),
            "Go libcni source (golang-github-appc-cni-dev)": dpkg("golang-github-appc-cni-dev"),
            "Go": command(["go", "version"]),
            "hyperfine": command(["hyperfine", "--version"]),
            "python": platform.python_version(),
            "iproute2": command(["ip", "-V"]),
            "containerd": dpkg("containerd"),
            "runc": dpkg("runc"),
        },
        "start": load(),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("phase", choices=["start", "end"])
    p.add_argument("--root")
    p.add_argument("--java")
    a = p.parse_args()
    print(json.dumps(start(a) if a.phase == "start" else {"end": load()}, indent=1))


if __name__ == "__main__":
    main()
