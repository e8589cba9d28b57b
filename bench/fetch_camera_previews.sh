#!/usr/bin/env bash
# fetch_camera_previews.sh [DIR]: downloads the camera JPEGs of
# camera-previews.txt (public test images of real cameras that carry an
# MPF or maker-note preview) into DIR (default $TMPDIR/thumbs-camera-previews, outside the repository),
# each checked against its sha256; files already there and intact are kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-${TMPDIR:-/tmp}/thumbs-camera-previews}
mkdir -p "$dir"
grep -v '^#' "$here/camera-previews.txt" | while read -r repo commit path sha size _; do
  name=$(basename "${path//%20/_}")
  out=$dir/$name
  if [[ -f $out ]] && echo "$sha  $out" | sha256sum -c --quiet - 2>/dev/null; then continue; fi
  curl -fsSL -o "$out.tmp" "https://raw.githubusercontent.com/$repo/$commit/$path"
  echo "$sha  $out.tmp" | sha256sum -c --quiet - || { echo "$name: sha256 differs" >&2; rm -f "$out.tmp"; exit 1; }
  mv "$out.tmp" "$out"
  echo "$name ($size bytes)"
done
