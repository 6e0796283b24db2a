#!/bin/sh
# Writes the CycloneDX SBOM (JSON, spec 1.5) of the jlink image that build-dist.sh made: what the image holds, read
# from the image itself: the JDK's modules jlink put in and jcni's modules (`bin/java --list-modules`), the Java
# runtime's version and vendor (the image's `release` and the JDK's), and for each jcni module the jar it was linked
# from (its Maven coordinates and SHA-256). Run by plugins-core's package phase after build-dist.sh (see its pom.xml):
#
#   image-sbom.sh <jdk home> <image dir> <module path> <version> <output file>
#
# Deterministic: no time stamp, and the serial number is derived from the image's build id, so an image built twice
# from the same inputs gets the same SBOM.
set -eu

jdk=$1 image=$2 modules=$3 version=$4 out=$5

say() { printf 'image-sbom: %s\n' "$*" >&2; }
field() { sed -n "s/^$1=\"\\(.*\\)\"\$/\\1/p" "$2"; }

[ -x "$image/bin/java" ] || { say "no image at $image"; exit 1; }
java_version=$(field JAVA_VERSION "$image/release")
runtime_version=$(field JAVA_RUNTIME_VERSION "$jdk/release")
implementor=$(field IMPLEMENTOR "$jdk/release")
build_id=$(cat "$image/lib/jcni-build-id")
[ -n "$java_version" ] && [ -n "$build_id" ] || { say "the image has no release version or build id"; exit 1; }

# The jcni module jars on the module path: module name -> jar, as `jar --describe-module` names them.
jars=$(mktemp)
trap 'rm -f "$jars"' EXIT
old_ifs=$IFS
IFS=:
for entry in $modules; do
    IFS=$old_ifs
    if [ -d "$entry" ]; then set -- "$entry"/*.jar; else set -- "$entry"; fi
    for jar in "$@"; do
        [ -f "$jar" ] || continue
        name=$("$jdk/bin/jar" --describe-module --file "$jar" | sed -n '1s/@.*//p')
        printf '%s %s\n' "$name" "$jar" >> "$jars"
    done
    IFS=:
done
IFS=$old_ifs

hash=$(printf '%s' "$build_id" | sha256sum | cut -c1-32)
serial=$(printf '%s-%s-5%s-8%s-%s' "$(echo "$hash" | cut -c1-8)" "$(echo "$hash" | cut -c9-12)" \
    "$(echo "$hash" | cut -c14-16)" "$(echo "$hash" | cut -c18-20)" "$(echo "$hash" | cut -c21-32)")

components=
dependencies=
for module in $("$image/bin/java" --list-modules); do
    name=${module%@*}
    mversion=${module#*@}
    [ "$mversion" != "$module" ] || mversion=$java_version
    ref="module:$name"
    dependencies="$dependencies${dependencies:+, }\"$ref\""
    case $name in
        io.jcni.*)
            jar=$(sed -n "s/^$name //p" "$jars")
            [ -n "$jar" ] || { say "module $name is in the image but on no jar of the module path"; exit 1; }
            artifact=$(basename "$jar" | sed "s/-$version\\.jar\$//")
            sha=$(sha256sum "$jar" | cut -d' ' -f1)
            component=$(printf '{"type": "library", "bom-ref": "%s", "group": "io.jcni", "name": "%s", "version": "%s", "description": "Java module %s", "licenses": [{"license": {"id": "Apache-2.0"}}], "purl": "pkg:maven/io.jcni/%s@%s?type=jar", "hashes": [{"alg": "SHA-256", "content": "%s"}], "properties": [{"name": "jlink:module", "value": "%s"}]}' \
                "$ref" "$artifact" "$mversion" "$name" "$artifact" "$mversion" "$sha" "$name")
            ;;
        *)
            component=$(printf '{"type": "library", "bom-ref": "%s", "name": "%s", "version": "%s", "description": "Java module %s of the Java runtime (jlink)", "supplier": {"name": "%s"}, "licenses": [{"expression": "GPL-2.0-only WITH Classpath-exception-2.0"}], "properties": [{"name": "jlink:module", "value": "%s"}, {"name": "java:runtime.version", "value": "%s"}]}' \
                "$ref" "$name" "$mversion" "$name" "$implementor" "$name" "$runtime_version")
            ;;
    esac
    components="$components${components:+,
    }$component"
done

mkdir -p "$(dirname "$out")"
cat > "$out" <<SBOM
{
  "bomFormat": "CycloneDX",
  "specVersion": "1.5",
  "serialNumber": "urn:uuid:$serial",
  "version": 1,
  "metadata": {
    "tools": {"components": [{"type": "application", "name": "image-sbom.sh", "description": "jcni's build (plugins-core/src/image)"}]},
    "component": {"type": "application", "bom-ref": "jcni-image", "group": "io.jcni", "name": "jcni-image", "version": "$version", "description": "The jlink image of jcni's CNI plugins, plugin service and runtime CLI (build id $build_id)", "licenses": [{"license": {"id": "Apache-2.0"}}], "properties": [{"name": "jcni:build-id", "value": "$build_id"}, {"name": "java:version", "value": "$java_version"}]}
  },
  "components": [
    $components
  ],
  "dependencies": [
    {"ref": "jcni-image", "dependsOn": [$dependencies]}
  ]
}
SBOM
say "wrote $out ($(echo "$dependencies" | tr ',' '\n' | wc -l) modules)"
