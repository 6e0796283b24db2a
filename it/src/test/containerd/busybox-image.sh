#!/bin/sh
# busybox-image.sh OUT.tar NAME: an OCI image archive of one layer, built from Debian's busybox-static (nothing is
# pulled), that `ctr images import` names NAME (annotation io.containerd.image.name). Its root holds /bin/busybox
# with the applets the tests run (sh, httpd, sleep, cat, ...) and /www/index.html; its command sleeps, so the image
# serves as containerd's sandbox image (the pod's "pause" container) as well as for the containers a test starts.
set -eu
out=$1
name=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/busybox-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/bin" "$root/www" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/etc" "$work/oci/blobs/sha256"
cp /bin/busybox "$root/bin/busybox"
for applet in sh httpd nc cat sleep printf ip ls; do ln -s busybox "$root/bin/$applet"; done
echo "hello from a jcni containerd test" >"$root/www/index.html"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$root" -cf "$work/layer.tar" .

# blob FILE: stores FILE under its digest; prints "sha256:<hex> <size>".
blob() {
  digest=$(sha256sum "$1" | cut -d' ' -f1)
  cp "$1" "$work/oci/blobs/sha256/$digest"
  echo "sha256:$digest $(stat -c %s "$1")"
}
set -- $(blob "$work/layer.tar")
layer=$1 layer_size=$2
oci=application/vnd.oci.image
{
  printf '{"architecture":"amd64","os":"linux",'
  printf '"config":{"Cmd":["/bin/sleep","2147483647"],"Env":["PATH=/bin"]},'
  printf '"rootfs":{"type":"layers","diff_ids":["%s"]}}' "$layer"  # the layer is stored uncompressed: same digest
} >"$work/config.json"
set -- $(blob "$work/config.json")
config=$1 config_size=$2
{
  printf '{"schemaVersion":2,"mediaType":"%s.manifest.v1+json",' "$oci"
  printf '"config":{"mediaType":"%s.config.v1+json","digest":"%s","size":%s},' "$oci" "$config" "$config_size"
  printf '"layers":[{"mediaType":"%s.layer.v1.tar","digest":"%s","size":%s}]}' "$oci" "$layer" "$layer_size"
} >"$work/manifest.json"
set -- $(blob "$work/manifest.json")
{
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"%s.manifest.v1+json","digest":"%s","size":%s,' "$oci" "$1" "$2"
  printf '"annotations":{"io.containerd.image.name":"%s"}}]}' "$name"
} >"$work/oci/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$work/oci/oci-layout"
tar -C "$work/oci" -cf "$out" oci-layout index.json blobs
