#!/bin/sh
# Builds dist/: the jlink image shared by every jcni plugin, its AOT caches trained on real plugin calls, one JVM
# launcher per plugin type in dist/cni/jvm, and in dist/cni/bin the plugin client (src/image/client.c, compiled here
# with gcc, one binary per type) that hands each call to the resident plugin service (`dist/bin/jcni serve`) and
# falls back to the JVM launcher; the systemd units of the service in dist/systemd. Run by plugins-core's package
# phase (see its pom.xml):
#
#   build-dist.sh <jdk home> <module path> <dist dir> <version> <client source> <launch helper source>
#
# The steps: jlink; the launchers, the CLI launcher and the units, filled in from src/image/templates (fill, below);
# the native code (native, below): the clients and the runtime's native launch helper
# (runtime/src/main/c/launch-helper.c: CniRuntime.Options.withLaunchHelpers(n, helper)), compiled into
# dist/libexec/jcni-launch-helper; the AOT trainings (train-aot.sh, which starts what they need and removes it again);
# and the verification of the dist (at the end). The JVM options live in jvm-options.sh, shared with the
# trainings.
#
# Build id: a hash of the image's classes, written to image/lib/jcni-build-id and compiled into every client. A
# client talks only to a service of the same id: a service left running from an older dist never answers for a newer
# one (the client runs its JVM launcher instead).
#
# The plugin types and their AOT groups come from the image itself (Launcher --aot-groups): one cache per group,
# lib/jcni-<group>.aot, because the JVM loads every class of a cache at each start and a call should not pay for
# classes only other plugins load (PluginRegistry.aotGroup has the measurements). VERSION and the about text (no
# CNI_COMMAND) use the small cache of group "version" instead, chosen by the launcher from CNI_COMMAND.
#
# The image is rebuilt from scratch every time and the caches are regenerated with it: a cache from another image is
# rejected by the JVM with only a warning on stderr, and start-up silently doubles. The last step therefore runs
# every launcher with -XX:AOTMode=on (which refuses to start on a rejected cache) and fails the build on any stderr.
set -eu

jdk=$1 modules=$2 dist=$3 version=$4 client_source=$5 helper_source=$6

image=$dist/image
templates=$(dirname "$0")/templates

say() { printf 'build-dist: %s\n' "$*" >&2; }

# fill <template> <output> NAME=value...: the template with every @NAME@ replaced by its value and without the
# template's own comment lines (those starting with "#%"); a placeholder left unfilled fails the build.
fill() {
    fill_script='/^#%/d'
    fill_template=$1 fill_output=$2
    shift 2
    for fill_pair in "$@"; do
        fill_value=$(printf '%s' "${fill_pair#*=}" | sed 's/[\\|&]/\\&/g')
        fill_script="$fill_script
s|@${fill_pair%%=*}@|$fill_value|g"
    done
    sed -e "$fill_script" "$fill_template" > "$fill_output"
    if grep -n '@[A-Z_][A-Z_]*@' "$fill_output" >&2; then
        say "$fill_output: a placeholder of $fill_template was not filled in"; exit 1
    fi
}

# The native code: the plugin client once per type (the type, the version, the build id and the dist are compiled
# in: a client works under any file name, as Go's plugins do) and the runtime's launch helper. One set of flags: the
# hardening flags of a program every CNI exec runs; static, so that a copy runs anywhere and nothing but the kernel
# is loaded at its start.
cflags='-std=c11 -Wall -Wextra -Werror -O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIE -static-pie -Wl,-z,relro,-z,now'
native() {
    for type in $types; do
        # shellcheck disable=SC2086
        gcc $cflags -DJCNI_TYPE="\"$type\"" -DJCNI_VERSION="\"$version\"" -DJCNI_BUILD_ID="\"$build_id\"" \
            -DJCNI_DIST="\"$dist_abs\"" -o "$dist/cni/bin/$type" "$client_source" ||
            { say "compiling the plugin client for $type failed"; exit 1; }
    done
    # shellcheck disable=SC2086
    gcc $cflags -o "$dist/libexec/jcni-launch-helper" "$helper_source" ||
        { say "compiling the launch helper failed"; exit 1; }
}

command -v gcc >/dev/null 2>&1 || { say "gcc is needed to build the plugin client (scripts/setup installs it)"; exit 1; }
rm -rf "$image" "$dist/cni" "$dist/bin" "$dist/systemd" "$dist/libexec"
mkdir -p "$dist/cni/bin" "$dist/cni/jvm" "$dist/bin" "$dist/systemd" "$dist/libexec"
say "jlink $image"
"$jdk/bin/jlink" --module-path "$modules" --add-modules io.jcni.plugins \
    --strip-debug --no-header-files --no-man-pages \
    --add-options=--enable-native-access=io.jcni.netlink \
    --output "$image"
# main, cli, service_main, flags, service_flags (they read the image's java.security).
. "$(dirname "$0")/jvm-options.sh"
build_id="$version-$(sha256sum "$image/lib/modules" | cut -c1-16)"
printf '%s\n' "$build_id" > "$image/lib/jcni-build-id"

# ---- launchers, units, native code -----------------------------------------------------------------------------
image_abs=$(cd "$image" && pwd -P)
dist_abs=$(cd "$dist" && pwd -P)
# One line per plugin type: "<type> <AOT group>".
table=$("$image/bin/java" $flags -Xshare:off -m $main --aot-groups)
types=$(printf '%s\n' "$table" | cut -d' ' -f1)
groups="version $(printf '%s\n' "$table" | cut -d' ' -f2 | sort -u | grep -vx version || true)"
[ -n "$types" ] || { say "the image lists no plugin types"; exit 1; }
while read -r type group; do
    fill "$templates/plugin-launcher" "$dist/cni/jvm/$type" TYPE="$type" GROUP="$group" VERSION="$version" \
        IMAGE="$image_abs" FLAGS="$flags" MAIN="$main"
    chmod 755 "$dist/cni/jvm/$type"
done <<TABLE
$table
TABLE
fill "$templates/jcni" "$dist/bin/jcni" IMAGE="$image_abs" FLAGS="$flags" CLI="$cli" \
    SERVICE_FLAGS="$service_flags" SERVICE_MAIN="$service_main"
chmod 755 "$dist/bin/jcni"
for unit in "$templates"/systemd/*; do
    fill "$unit" "$dist/systemd/${unit##*/}" DIST="$dist_abs"
done
native

# ---- AOT caches ------------------------------------------------------------------------------------------------
# shellcheck disable=SC2086
sh "$(dirname "$0")/train-aot.sh" "$dist" $groups

# ---- verification: every launcher starts with its caches, which the JVM accepts --------------------------------
# VERSION runs with the version cache; an ADD without its variables fails in the skel (code 4, on stdout) after the
# JVM started with the plugin's group cache: that start must not warn either. Through the clients with the service
# off (so each runs its JVM launcher, as without a service).
export JCNI_SERVICE_SOCKET=off
work=$(mktemp -d "${TMPDIR:-/tmp}/jcni-verify.XXXXXX")
trap 'rm -rf "$work"' EXIT
for type in $types; do
    out=$(JCNI_JAVA_OPTS=-XX:AOTMode=on CNI_COMMAND=ADD "$dist/cni/bin/$type" 2>"$work/stderr" </dev/null) && {
        say "$type ADD without variables succeeded: $out"; exit 1; }
    if [ -s "$work/stderr" ]; then
        say "$type ADD wrote to stderr (a rejected or stale AOT cache warns there):"; cat "$work/stderr" >&2; exit 1
    fi
    case $out in
        *'"code": 4'*) ;;
        *) say "$type ADD without variables printed: $out"; exit 1 ;;
    esac
done
for type in $types; do
    out=$(JCNI_JAVA_OPTS=-XX:AOTMode=on CNI_COMMAND=VERSION "$dist/cni/bin/$type" 2>"$work/stderr" </dev/null) || {
        say "$type VERSION failed with the AOT cache required:"; cat "$work/stderr" >&2; exit 1; }
    if [ -s "$work/stderr" ]; then
        say "$type VERSION wrote to stderr (a rejected or stale AOT cache warns there):"; cat "$work/stderr" >&2
        exit 1
    fi
    case $out in
        '{"cniVersion":'*'"supportedVersions":'*) ;;
        *) say "$type VERSION printed: $out"; exit 1 ;;
    esac
done
out=$(JCNI_JAVA_OPTS=-XX:AOTMode=on "$dist/bin/jcni" --version 2>"$work/stderr" </dev/null) || {
    say "jcni --version failed with the AOT cache required:"; cat "$work/stderr" >&2; exit 1; }
if [ -s "$work/stderr" ] || [ "$out" != "jcni $version" ]; then
    say "jcni --version printed '$out' and on stderr:"; cat "$work/stderr" >&2; exit 1
fi
# The service answers the clients of this build: one VERSION per type through a service on a private socket. It starts
# with its AOT cache required, and its log (its stderr) must hold nothing but its own lines: no JVM warning.
mkdir -m 700 "$work/service"
export JCNI_SERVICE_SOCKET="$work/service/plugins.sock"
JCNI_JAVA_OPTS=-XX:AOTMode=on "$dist/bin/jcni" serve > "$work/service.log" 2>&1 &
service_pid=$!
tries=0
while [ ! -S "$JCNI_SERVICE_SOCKET" ] && kill -0 $service_pid 2>/dev/null && [ $tries -lt 600 ]; do
    sleep 0.1; tries=$((tries + 1))
done
for type in $types; do
    out=$(JCNI_DEBUG=1 CNI_COMMAND=VERSION "$dist/cni/bin/$type" 2>"$work/stderr" </dev/null) || true
    case $out in
        '{"cniVersion":'*'"supportedVersions":'*) ;;
        *) kill $service_pid; say "$type VERSION through the service printed: $out"; cat "$work/stderr" "$work/service.log" >&2; exit 1 ;;
    esac
    grep -q "VERSION via service" "$work/stderr" || {
        kill $service_pid; say "$type VERSION was not answered by the service:"; cat "$work/stderr" "$work/service.log" >&2; exit 1; }
done
kill $service_pid; wait $service_pid 2>/dev/null || true
if grep -v '^jcni serve: ' "$work/service.log" | grep -q .; then
    say "the service wrote more than its log (a rejected or stale AOT cache warns there):"; cat "$work/service.log" >&2
    exit 1
fi
say "dist ready: $(echo $types | wc -w) launchers, image $(du -sh "$image" | cut -f1) with AOT caches: $(cd "$image/lib" && du -h jcni-*.aot | tr '\t\n' ' ')"
