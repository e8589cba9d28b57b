#!/usr/bin/env bash
# fetch_camera_previews.sh [DIR [LIST [CORPUS]]]: the camera JPEGs of LIST
# (default bench/camera-previews.txt; bench/camera-folder.txt is the other
# list) into DIR (default $TMPDIR/thumbs-camera-previews, outside the
# repository), each checked against its sha256; files already there and
# intact are kept. With CORPUS (yes, no), only the lines whose corpus field
# (the sixth) says so. Prints the name of each of those files in DIR, one a
# line (bench.sh takes its corpus from these); what it fetched, on stderr. A
# file is taken from a git copy of its repository when one is at hand
# (CAMERA_MIRRORS, default /work/.mirror: OWNER+NAME/repo as the fetch tool
# leaves them, or a NAME clone), else downloaded from GitHub at its commit.
# The name in DIR is the path's file name, URL-decoded, with every character
# but letters, digits, '.', '_' and '-' made '_', and its extension .jpg
# (FETCH_EXT: heic for bench/heic-real.txt's phone HEICs). Exit status 1 when
# a file could not be had (the others are still fetched).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-${TMPDIR:-/tmp}/thumbs-camera-previews}
list=${2:-$here/camera-previews.txt}
select=${3:-}
mirrors=${CAMERA_MIRRORS:-/work/.mirror}
mkdir -p "$dir"
# urldecode STRING: %XX escapes to their bytes
urldecode() { printf '%b' "${1//%/\\x}"; }
# from_mirror REPO COMMIT PATH OUT: the blob from a git copy of REPO, if any
from_mirror() {
  local repo=$1 commit=$2 path=$3 out=$4 g
  for g in "$mirrors/${repo/\//+}/repo" "$mirrors/${repo#*/}/.git" "$mirrors/${repo#*/}"; do
    [[ -d $g ]] || continue
    git --git-dir="$g" cat-file blob "$commit:$path" >"$out" 2>/dev/null && [[ -s $out ]] && return 0
  done
  return 1
}
failed=0
while read -r repo commit path sha size corpus _; do
  [[ -z $repo || $repo == \#* ]] && continue
  [[ -n $select && $corpus != "$select" ]] && continue
  raw=$(urldecode "$path")
  name=${raw##*/}
  name=${name//[^A-Za-z0-9._-]/_}
  name=${name%.*}.${FETCH_EXT:-jpg} # one extension (.JPG, .jpeg): the peers' glob is *.jpg
  out=$dir/$name
  if [[ -f $out ]] && echo "$sha  $out" | sha256sum -c --quiet - >/dev/null 2>&1; then echo "$name"; continue; fi
  if ! from_mirror "$repo" "$commit" "$raw" "$out.tmp" &&
    ! curl -fsSL --connect-timeout 15 --max-time 120 -o "$out.tmp" "https://raw.githubusercontent.com/$repo/$commit/$path" 2>/dev/null; then
    echo "$name: could not be had (no git copy under $mirrors, no download)" >&2
    rm -f "$out.tmp"; failed=1; continue
  fi
  if ! echo "$sha  $out.tmp" | sha256sum -c --quiet - >/dev/null 2>&1; then
    echo "$name: sha256 differs" >&2; rm -f "$out.tmp"; failed=1; continue
  fi
  mv "$out.tmp" "$out"
  echo "fetched $name ($size bytes)" >&2
  echo "$name"
done <"$list"
exit "$failed"
