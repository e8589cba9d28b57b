#!/usr/bin/env bash
# Builds the runtime stage of ./Dockerfile around the statically linked thumbs
# and runs it: `thumbs run` on Samples/ and `thumbs --version`, inside the
# image's root filesystem, as its non-root user, with no Swift toolchain in
# reach. Not part of `make test`: it downloads Debian packages.
#
#   sudo bash scripts/test-image.sh            (root: apt-get, mmdebstrap, mount, chroot)
#   KEEP=1 bash scripts/test-image.sh          keeps the work directory and the images
#
# No container registry is needed. The base image is a Debian bookworm minbase
# root filesystem made by mmdebstrap from Debian's package mirrors and imported
# into podman; it stands in for debian:bookworm-slim (RUNTIME_IMAGE). The
# Dockerfile's runtime stage is then built as is, RUN step included (podman
# build --isolation chroot), with BINARIES=prebuilt: the binary comes from
# `make build-static` instead of the Dockerfile's build stage, which needs the
# swift:6.x image from Docker Hub. The image is run through `podman image
# mount` + chroot, since `podman run` needs cgroups this sandbox lacks.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
base_image=localhost/thumbs-test-base:bookworm
image=localhost/thumbs:test
work=$(mktemp -d /tmp/thumbs-test-image.XXXXXX)
mounted=""
bound=""
proc=""

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

cleanup() {
    [ -n "$proc" ] && umount "$proc" 2>/dev/null || true
    [ -n "$bound" ] && umount "$bound" 2>/dev/null || true
    [ -n "$mounted" ] && podman image umount "$image" >/dev/null 2>&1 || true
    if [ -z "${KEEP:-}" ]; then
        rm -rf "$work"
        podman rmi -f "$image" >/dev/null 2>&1 || true
    else
        echo "kept $work and $image"
    fi
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || fail "run as root (apt-get, mmdebstrap, podman image mount, chroot)"

step "tools"
if ! command -v podman >/dev/null || ! command -v mmdebstrap >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman mmdebstrap >/dev/null
fi
podman --version
mmdebstrap --version

step "static binary (make build-static)"
make -C "$repo" build-static
binary="$repo/.build/static/stage/thumbs"
ls -l "$binary"

step "base image $base_image (Debian bookworm minbase, from Debian's mirrors)"
if podman image exists "$base_image"; then
    echo "reusing $base_image (podman rmi $base_image to rebuild it)"
else
    mmdebstrap --variant=minbase --quiet bookworm "$work/rootfs.tar"
    podman import "$work/rootfs.tar" "$base_image" >/dev/null
    rm -f "$work/rootfs.tar"
fi

step "runtime image $image (Dockerfile --target runtime, BINARIES=prebuilt)"
mkdir -p "$work/context"
cp "$binary" "$work/context/thumbs"
podman build --isolation chroot --quiet \
    -f "$repo/Dockerfile" --target runtime \
    --build-arg BINARIES=prebuilt \
    --build-arg RUNTIME_IMAGE="$base_image" \
    -t "$image" "$work/context" >/dev/null
podman image inspect "$image" --format \
    'user={{.Config.User}} entrypoint={{json .Config.Entrypoint}} workdir={{.Config.WorkingDir}} volumes={{json .Config.Volumes}} size={{.Size}}'
[ "$(podman image inspect "$image" --format '{{.Config.User}}')" = "10001:10001" ] || fail "image user is not 10001:10001"
[ "$(podman image inspect "$image" --format '{{json .Config.Entrypoint}}')" = '["thumbs"]' ] || fail 'entrypoint is not ["thumbs"]'
[ "$(podman image inspect "$image" --format '{{.Config.WorkingDir}}')" = "/data" ] || fail "workdir is not /data"

step "inside the image's root filesystem"
mounted=$(podman image mount "$image")
root=$mounted
echo "mounted at $root"
grep '^thumbs:x:10001:10001:' "$root/etc/passwd" || fail "no user thumbs (10001:10001) in the image"
grep '^thumbs:x:10001:' "$root/etc/group" || fail "no group thumbs (10001) in the image"
[ "$(stat -c %u:%g "$root/data")" = "10001:10001" ] || fail "/data is not owned by thumbs"
for path in /opt/swift /usr/lib/swift /usr/bin/swift /usr/bin/swiftc; do
    [ ! -e "$root$path" ] || fail "the image holds a Swift toolchain: $path"
done
chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' libvips42 libjpeg62-turbo liblcms2-2 ca-certificates
echo "ldd /usr/local/bin/thumbs:"
chroot "$root" ldd /usr/local/bin/thumbs | sed 's/^/  /' | tee "$work/ldd.txt"
if grep -E 'not found|libswift|libFoundation|libdispatch' "$work/ldd.txt"; then fail "unresolved or Swift runtime libraries (above)"; fi

# A writable /data for the run: the mounted image is read-only.
mkdir -p "$work/data"
cp -r "$repo/Samples" "$work/data/samples"
chown -R 10001:10001 "$work/data"
mount --bind "$work/data" "$root/data"
bound="$root/data"
# /proc, as every container runtime mounts it: the Swift runtime reads the
# command line from /proc/self/cmdline (without it thumbs sees no arguments).
mount -t proc proc "$root/proc"
proc="$root/proc"

# The container's view: the image's user, working directory and entrypoint,
# an environment with nothing from the host.
in_image() {
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/data LANG=C.UTF-8 \
        chroot --userspec=10001:10001 "$root" /bin/sh -c 'cd /data && exec thumbs "$@"' thumbs "$@"
}

step "thumbs --version"
version=$(in_image --version)
echo "$version"
[ -n "$version" ] || fail "thumbs --version printed nothing"

step "thumbs run samples --out out --size 256 --max-failures 1"
set +e
in_image run samples --out out --size 256 --max-failures 1 --progress never
status=$?
set -e
echo "exit status: $status"
[ "$status" = 0 ] || fail "thumbs run exited $status"
[ -f "$work/data/out/manifest.json" ] || fail "no manifest.json"
owners=$(find "$work/data/out" -printf '%u:%g\n' | sort -u | tr '\n' ' ')
echo "owners of what it wrote: $owners"
[ "$owners" = "10001:10001 " ] || fail "outputs not all owned by 10001:10001"

step "thumbs verify out/manifest.json"
in_image verify out/manifest.json
step "thumbs stats out/manifest.json"
in_image stats out/manifest.json | head -12
failed=$(grep -o '"status" *: *"failed"' "$work/data/out/manifest.json" | wc -l)
ok=$(grep -o '"status" *: *"ok"' "$work/data/out/manifest.json" | wc -l)
echo "manifest: $ok ok, $failed failed"
[ "$failed" = 1 ] || fail "expected exactly one failed item (Samples/broken-truncated.jpg)"
[ "$ok" -ge 7 ] || fail "expected at least 7 thumbnails"

step "PASS: the runtime image runs thumbs as uid 10001 without a Swift toolchain"
