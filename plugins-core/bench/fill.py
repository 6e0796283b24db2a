#!/usr/bin/env python3
"""fill.py <network dir> <a.b> <count>: writes <count> reservations of a.b.0.0/16 in Go host-local's format
(one file per address holding "<containerID>\\r\\n<ifname>", plus last_reserved_ip.0), skipping the gateway .0.1."""
import os
import sys

directory, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(directory, exist_ok=True)
written = 0
n = 2  # a.b.0.2 is the first address after the gateway a.b.0.1
last = None
while written < count:
    third, fourth = divmod(n, 256)
    n += 1
    if fourth == 0 or (third == 255 and fourth == 255):
        continue
    address = "%s.%d.%d" % (prefix, third, fourth)
    with open(os.path.join(directory, address), "w") as f:
        f.write("fill-%d\r\neth0" % written)
    written += 1
    last = address
with open(os.path.join(directory, "last_reserved_ip.0"), "w") as f:
    f.write(last)
