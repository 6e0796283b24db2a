#!/bin/sh
# Packages dist/ as the CNI ecosystem installs plugins. Run by plugins-core's package phase after build-dist.sh and
# image-sbom.sh (see its pom.xml):
#
#   package-dist.sh <dist dir> <version> <project dir>
#
# writes into <dist dir>/packages:
#
#   jcni-cni-plugins-linux-amd64-<version>.tgz   as the Go plugins' release tarball (cni-plugins-linux-amd64-*.tgz):
#       flat, one program per plugin type at the top, to unpack into /opt/cni/bin (or anywhere, then copy or link its
#       contents there). What the programs need sits beside them in jcni/: the JVM launchers (jcni/cni/jvm), the
#       jlink image (jcni/image, with its SBOM), the jcni CLI and plugin service (jcni/bin/jcni), the launch helper,
#       and systemd units written for /opt/cni/bin. Relocatable: a client finds its JVM launcher from its own real
#       location (dist/cni/bin/../jvm, else ./jcni/cni/jvm, see client.c), a launcher its image likewise, so the
#       directory works wherever it is unpacked, through symlinks to its programs, and copied as a whole.
#
#   jcni_<debian version>_amd64.deb               a Debian package (dpkg-deb): the dist under /usr/lib/jcni, the
#       plugins in /opt/cni/bin (symbolic links to /usr/lib/jcni/cni/bin, where each finds its launcher), jcni on
#       PATH (/usr/bin/jcni), the systemd units of the plugin service and the dhcp daemon in /lib/systemd/system
#       (socket-activated, enabled by the administrator: `systemctl enable --now jcni-plugins.socket`). The Debian
#       version is the project's with "-" as "~" (0.1.0-SNAPSHOT -> 0.1.0~SNAPSHOT, which sorts before 0.1.0).
#
# Both are written with fixed owners (root), modes, order and times (SOURCE_DATE_EPOCH: the parent POM's
# project.build.outputTimestamp), so their layout does not depend on who built them.
set -eu

dist=$1 version=$2 project=$3

say() { printf 'package-dist: %s\n' "$*" >&2; }

for tool in tar gzip dpkg-deb; do
    command -v "$tool" >/dev/null 2>&1 || { say "$tool is needed to package the plugins (scripts/setup installs it)"; exit 1; }
done
[ -x "$dist/bin/jcni" ] && [ -d "$dist/image" ] || { say "no dist at $dist (build-dist.sh makes it)"; exit 1; }

epoch=${SOURCE_DATE_EPOCH:-$(date -u -d 2026-11-21T00:00:00Z +%s)}
export SOURCE_DATE_EPOCH=$epoch
out=$dist/packages
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/jcni-package.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
dist_abs=$(cd "$dist" && pwd -P)

# The systemd units with <prefix> for the dist's location (build-dist.sh writes them for the build tree).
units() {
    prefix=$1 plugins=$2 target=$3
    mkdir -p "$target"
    for unit in "$dist/systemd"/*; do
        sed -e "s|ExecStart=$dist_abs/cni/bin/|ExecStart=$plugins/|" -e "s|$dist_abs|$prefix|g" \
            -e "s|^Documentation=.*|Documentation=https://github.com/jcni/jcni|" "$unit" > "$target/${unit##*/}"
        chmod 644 "$target/${unit##*/}"
    done
}

# Everything of the dist but the clients, under <target>: image, JVM launchers, CLI, helper.
payload() {
    target=$1
    mkdir -p "$target/cni"
    cp -a "$dist/image" "$target/image"
    cp -a "$dist/cni/jvm" "$target/cni/jvm"
    cp -a "$dist/bin" "$target/bin"
    cp -a "$dist/libexec" "$target/libexec"
    cp "$project/LICENSE" "$project/NOTICE" "$target/"
}

# ---- the release tarball ---------------------------------------------------------------------------------------
name=jcni-cni-plugins-linux-amd64-$version
root=$work/$name
mkdir -p "$root"
cp -a "$dist/cni/bin/." "$root/"
payload "$root/jcni"
units /opt/cni/bin/jcni /opt/cni/bin "$root/jcni/systemd"
cat > "$root/jcni/README" <<README
jcni $version: CNI plugins in Java (https://github.com/jcni/jcni, Apache-2.0; the Java runtime in image/ is
OpenJDK's, GPLv2 with the Classpath Exception, see image/legal).

Install as the Go plugins' tarball: unpack into /opt/cni/bin (tar -C /opt/cni/bin -xzf $name.tgz), or
anywhere and link its programs into /opt/cni/bin (ln -s \$PWD/bridge /opt/cni/bin/), or copy all of it, this jcni/
directory included, into one directory. Each plugin program finds what it runs in this directory.

Optional, for fast calls: the resident plugin service, jcni/bin/jcni serve (jcni/systemd has its socket-activated
units, written for /opt/cni/bin; edit ExecStart if you unpacked elsewhere).
The image's SBOM (CycloneDX): jcni/image/sbom.cdx.json.
README
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner --mode='u+rwX,go+rX,go-w' \
    -C "$root" -cf - . | gzip -n -6 > "$out/$name.tgz"

# ---- the Debian package ----------------------------------------------------------------------------------------
deb_version=$(printf '%s' "$version" | tr '-' '~')
pkg=$work/deb
payload "$pkg/usr/lib/jcni"
mkdir -p "$pkg/usr/lib/jcni/cni/bin" "$pkg/opt/cni/bin" "$pkg/usr/bin" "$pkg/usr/share/doc/jcni"
cp -a "$dist/cni/bin/." "$pkg/usr/lib/jcni/cni/bin/"
for client in "$dist/cni/bin"/*; do
    ln -s "/usr/lib/jcni/cni/bin/${client##*/}" "$pkg/opt/cni/bin/${client##*/}"
done
ln -s /usr/lib/jcni/bin/jcni "$pkg/usr/bin/jcni"
units /usr/lib/jcni /usr/lib/jcni/cni/bin "$pkg/lib/systemd/system"
cp "$project/README.md" "$project/CHANGELOG.md" "$project/NOTICE" "$pkg/usr/share/doc/jcni/"
{
    printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n'
    printf 'Upstream-Name: jcni\nSource: https://github.com/jcni/jcni\n\n'
    printf 'Files: *\nCopyright: The jcni authors\nLicense: Apache-2.0\n\n'
    printf 'Files: usr/lib/jcni/image/*\nCopyright: Oracle and/or its affiliates, and others (OpenJDK)\n'
    printf 'License: GPL-2.0-only WITH Classpath-exception-2.0\n Texts in /usr/lib/jcni/image/legal.\n\n'
    printf 'License: Apache-2.0\n On Debian systems, the full text is in /usr/share/common-licenses/Apache-2.0.\n'
} > "$pkg/usr/share/doc/jcni/copyright"
mkdir -p "$pkg/DEBIAN"
installed=$(du -sk --apparent-size "$pkg" | cut -f1)
cat > "$pkg/DEBIAN/control" <<CONTROL
Package: jcni
Version: $deb_version
Architecture: amd64
Maintainer: The jcni authors <dev@jcni.invalid>
Installed-Size: $installed
Depends: libc6
Section: net
Priority: optional
Homepage: https://github.com/jcni/jcni
Description: Container Network Interface (CNI) plugins and runtime in Java
 jcni's CNI plugins (bridge, ptp, macvlan, ipvlan, vlan, host-device, tap, dummy,
 loopback, tuning, bandwidth, portmap, firewall, sbr, vrf, host-local, static,
 dhcp, cluster-ipam) in /opt/cni/bin, where container runtimes look for them,
 with the jcni command (a cnitool-compatible CLI and the resident plugin
 service, jcni serve) and the service's systemd units. One jlink Java runtime
 image under /usr/lib/jcni holds all of it.
CONTROL
# The units are not enabled by the package: the service is optional (without it each plugin runs in a JVM of its own).
cat > "$pkg/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = configure ] && [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || true
fi
SCRIPT
cat > "$pkg/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl stop jcni-plugins.socket jcni-plugins.service jcni-dhcp.socket jcni-dhcp.service >/dev/null 2>&1 || true
fi
SCRIPT
cat > "$pkg/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || true
fi
SCRIPT
chmod 755 "$pkg/DEBIAN/postinst" "$pkg/DEBIAN/prerm" "$pkg/DEBIAN/postrm"
chmod -R u+rwX,go+rX,go-w "$pkg"
deb=$out/jcni_${deb_version}_amd64.deb
dpkg-deb --root-owner-group -Zgzip -z6 --build "$pkg" "$deb" >/dev/null
say "$(cd "$out" && ls -s --block-size=M | tail -n +2 | tr '\n' ' ')"
