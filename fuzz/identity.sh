#!/usr/bin/env bash
# Off CI. Byte-identity of the direct JPEG path across a change: builds
# dchash.c (this tree's) against Sources/CVipsShim as of git revision REV and
# as in the work tree, decodes the same files with both (1/8, 1/4, 1/2, 1/1 and 1/1 streamed), and
# diffs the per-file pixel hashes. Exit 0 when every line matches.
#
#   fuzz/identity.sh [REV=HEAD] [FILE...]
#
# IDENTITY_NEW_CFLAGS adds flags to the work tree's build: -DJS_HOT= checks
# the baseline code of the loops jpeg_scan.h compiles twice (the x86-64-v3
# clone is the one a CPU with AVX2 runs).
#
# Without FILEs: make_jpegs.sh output at five sizes (needs vips, cjpeg,
# jpegtran), Tests/Fixtures/jpeg, and fuzz/out/{seeds,corpus,crashes} when
# present.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
rev=${1:-HEAD}
shift || true
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/old"
git -C "$root" archive "$rev" Sources/CVipsShim | tar -x -C "$tmp/old"
build() { # shim directory, output, extra flags (every C file of the shim: the decoders and what they share)
  # shellcheck disable=SC2086
  $cc -O2 $3 -I"$1/include" $(pkg-config --cflags vips) "$here/dchash.c" "$1"/*.c \
    -o "$2" $(pkg-config --libs vips lcms2 gmodule-2.0) -ljpeg -lm
}
build "$tmp/old/Sources/CVipsShim" "$tmp/dchash-old" ""
build "$root/Sources/CVipsShim" "$tmp/dchash-new" "${IDENTITY_NEW_CFLAGS:-}"

if (( $# == 0 )); then
  for size in "131 97" "43 37" "70 19" "123 85" "517 389"; do
    "$here/make_jpegs.sh" "$tmp/gen-${size/ /x}" $size >/dev/null
  done
  files=("$tmp"/gen-*/*.jpg "$root"/Tests/Fixtures/jpeg/*.jpg)
  for d in seeds corpus crashes; do
    [[ -d $here/out/$d ]] && files+=("$here/out/$d"/*)
  done
else
  files=("$@")
fi
printf '%s\n' "${files[@]}" > "$tmp/files"
xargs "$tmp/dchash-old" < "$tmp/files" > "$tmp/old.txt"
xargs "$tmp/dchash-new" < "$tmp/files" > "$tmp/new.txt"
echo "$(wc -l < "$tmp/files") files, $(wc -l < "$tmp/old.txt") decodes:" \
  "$(grep -c ' decoder 1 ' "$tmp/old.txt" || true) DC baseline," \
  "$(grep -c ' decoder 2 ' "$tmp/old.txt" || true) DC progressive," \
  "$(grep -c ' decoder 0 ' "$tmp/old.txt" || true) libjpeg," \
  "$(grep -c ' refused' "$tmp/old.txt" || true) refused"
if diff "$tmp/old.txt" "$tmp/new.txt"; then
  echo "identical to $rev"
else
  echo "DIFFERENT from $rev" >&2
  exit 1
fi
