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
# the native code in one step (native, below): the clients and the runtime's native launch helper
# (runtime/src/main/c/launch-helper.c: CniRuntime.Options.withLaunchHelpers(n, helper)), compiled into
# dist/libexec/jcni-launch-helper; the AOT trainings (train-aot.sh, which starts what they need and removes it again);
# one check that the caches are accepted. The JVM options are in jvm-options.sh, which the trainings share.
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
# rejected by the JVM with only a warning on stderr, and start-up silently doubles. The last step therefore starts
# the JVM once on every cache with -XX:AOTMode=on (which refuses to start on a rejected cache) and fails the build on
# any stderr; the it module's DistVerificationTest starts every launcher, the CLI and the service.
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

# ---- the caches are accepted -----------------------------------------------------------------------------------
# The one check of the dist that stays in the build: a stale or rejected cache only warns and silently doubles every
# start, so the build must not ship one. The JVM starts once on each cache with -XX:AOTMode=on (which refuses to
# start on a rejected cache) through a launcher that uses it, and must write nothing on stderr (where the JVM warns):
# VERSION for the version cache; for each group's, an ADD without its variables by one plugin of the group, which
# the skel answers with code 4 on stdout after the JVM started; jcni --version for the CLI's; jcni serve --help for
# the service's. That is one start per cache, not per launcher: every launcher of a group names the same cache. The
# it module's DistVerificationTest does the rest (every client and launcher, the CLI's output, the service answering
# the clients of this build).
export JCNI_SERVICE_SOCKET=off
check=$(mktemp -d "${TMPDIR:-/tmp}/jcni-aot-check.XXXXXX")
trap 'rm -rf "$check"' EXIT
# accepted <cache> <expected stdout (a case pattern)> <command>...: the command's start on that cache.
accepted() {
    accepted_cache=$1 accepted_pattern=$2
    shift 2
    accepted_out=$(JCNI_JAVA_OPTS=-XX:AOTMode=on "$@" 2>"$check/stderr" </dev/null) || true
    if [ -s "$check/stderr" ]; then
        say "$* wrote to stderr (a rejected or stale AOT cache jcni-$accepted_cache.aot warns there):"
        cat "$check/stderr" >&2; exit 1
    fi
    # shellcheck disable=SC2254
    case $accepted_out in
        $accepted_pattern) ;;
        *) say "$* (AOT cache jcni-$accepted_cache.aot required) printed: $accepted_out"; exit 1 ;;
    esac
}
first=$(printf '%s\n' "$types" | head -n 1)
accepted version '{"cniVersion":*"supportedVersions":*' env CNI_COMMAND=VERSION "$dist/cni/jvm/$first"
for group in $groups; do
    [ "$group" != version ] || continue
    type=$(printf '%s\n' "$table" | awk -v group="$group" '$2 == group { print $1; exit }')
    accepted "$group" '*"code": 4*' env CNI_COMMAND=ADD "$dist/cni/jvm/$type"
done
accepted cli "jcni $version" "$dist/bin/jcni" --version
accepted service '*Usage: jcni serve*' "$dist/bin/jcni" serve --help
say "dist ready: $(echo $types | wc -w) launchers, image $(du -sh "$image" | cut -f1) with AOT caches: $(cd "$image/lib" && du -h jcni-*.aot | tr '\t\n' ' ')"
