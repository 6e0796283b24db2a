#!/usr/bin/env python3
"""Prints median/mean/min per command of a hyperfine JSON export, and each median's ratio to the first command's."""
import json
import sys

results = json.load(open(sys.argv[1]))["results"]
base = results[0]["median"] or 1e-9
for r in results:
    print("  %-58s median %8.2f  mean %8.2f  min %8.2f  x%.1f" % (
        r["command"][-58:], r["median"] * 1000, r["mean"] * 1000, r["min"] * 1000, r["median"] / base))
