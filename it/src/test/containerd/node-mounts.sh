#!/bin/sh
# node-mounts.sh DIR COMMAND...: turns the mount namespace it runs in into a test node's own, then execs COMMAND (the
# process that holds the namespace). Run it in a private mount namespace inside the node's network namespace:
#
#   nsenter --net=/run/netns/NODE unshare --mount --propagation slave node-mounts.sh DIR sleep 2147483647
#
# so that no mount made here reaches the machine (propagation slave: the machine's mounts still show here, not the
# other way round), and then run containerd, ctr, the plugin service in it (nsenter -t PID -m -n). What it mounts:
#   - /sys: a sysfs of the node's network namespace (sysfs lists the devices of the namespace that mounts it), with
#     the machine's cgroup hierarchies mounted again under /sys/fs/cgroup as pid 1's mount table lists them (runc
#     and containerd need them; `ip netns exec`, which the benchmark runs under, mounts a sysfs without them);
#   - /run: a tmpfs, so that containerd's shim sockets (/run/containerd/s, whatever its state directory) and runc's
#     state land nowhere on the machine;
#   - the directories CNI runtimes and plugins use by default, bound from DIR, where the test reads them back:
#     /etc/cni/net.d from DIR/etc-cni-net.d, /opt/cni/bin from DIR/opt-cni-bin, /var/lib/cni from DIR/var-lib-cni,
#     /run/cni from DIR/run-cni. Where such a directory does not exist on the machine (and creating it there would
#     change the machine), its nearest existing parent (/etc, /opt, /var/lib) gets an overlay whose upper layer is in
#     DIR/overlay, and the directory is made in that; with NODE_KEEP_OPT_CNI_BIN=1, /opt/cni/bin stays as it is;
#   - /usr/lib/cni: an empty read-only tmpfs. Debian's ctr (and go-cni as Debian builds it) also search it for
#     plugins, so a type missing from /opt/cni/bin would silently run Debian's Go plugin.
set -eu
dir=$1
shift

# (the /sys there may be this network namespace's sysfs already, under `ip netns exec`: mounting it again would fail)
umount -l /sys
mount -t sysfs sysfs /sys
awk '$5 ~ /^\/sys\/fs\/cgroup(\/|$)/ { i = 7; while ($i != "-") i++; print $(i + 1), $5, $(i + 3) }' /proc/1/mountinfo |
  while read -r type point options; do
    mkdir -p "$point"
    mount -t "$type" -o "$options" "$type" "$point"
  done

mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/containerd /run/cni

# make_room PATH: PATH exists afterwards; when it did not, it was made in an overlay over its nearest existing parent.
make_room() {
  [ -d "$1" ] && return 0
  parent=$(dirname "$1")
  while [ ! -d "$parent" ]; do parent=$(dirname "$parent"); done
  layer="$dir/overlay/$(echo "$parent" | tr / _)"
  mkdir -p "$layer/upper" "$layer/work"
  mount -t overlay overlay -o "lowerdir=$parent,upperdir=$layer/upper,workdir=$layer/work" "$parent"
  mkdir -p "$1"
}
pairs="/etc/cni/net.d:etc-cni-net.d /var/lib/cni:var-lib-cni /run/cni:run-cni"
# NODE_KEEP_OPT_CNI_BIN=1: the node runs the plugins its mount namespace has in /opt/cni/bin (an installed package's)
[ "${NODE_KEEP_OPT_CNI_BIN:-}" = 1 ] || pairs="$pairs /opt/cni/bin:opt-cni-bin"
for pair in $pairs; do
  target=${pair%%:*}
  source=$dir/${pair#*:}
  mkdir -p "$source"
  make_room "$target"
  mount --bind "$source" "$target"
done
if [ -d /usr/lib/cni ]; then
  mount -t tmpfs -o ro,mode=0755 tmpfs /usr/lib/cni
fi
exec "$@"
