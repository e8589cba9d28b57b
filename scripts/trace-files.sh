#!/usr/bin/env bash
# trace-files.sh [FILE...]: which source files of Sources/ one thumbs run
# executes code in, per kind of source (issue 34, §4: a JPEG in at most 40
# files, each folder entered once).
#
# Builds thumbs (debug) with coverage instrumentation in its own scratch path,
# .build/trace (Swift: -profile-generate -profile-coverage-mapping; C:
# -fprofile-instr-generate -fcoverage-mapping), so the ordinary .build is not
# touched; the first build is cold (15-30 minutes on 2 cores: run it under
# `nice -n 19`). Then runs `thumbs run FILE --out TMP` once per file, each
# under its own LLVM_PROFILE_FILE, and prints, per file, the source files
# under Sources/ with at least one executed line, grouped by folder, and
# their counts. A file of a run that is not counted (a test's fixture,
# Samples/) is still a source of thumbs: only Sources/ is listed.
#
# Without FILE: Samples/landscape.jpg, and the HEIC and the video of
# Tests/Fixtures (Samples/ has neither; nor does the repository hold a RAW
# LibRaw develops or previews: ExifTool's are stripped. Give one as FILE).
# Run from the repository's root.
#
# Environment: SWIFT (default swift), LLVM_BIN (default: beside swift, else
# /opt/swift/usr/bin), TRACE_SCRATCH (default .build/trace), TRACE_OUT (the
# runs' outputs and profiles; default a temporary folder, removed at exit),
# TRACE_COMMIT (the commit to name, where git cannot run: /work/tools/inwt).
set -euo pipefail

SWIFT=${SWIFT:-swift}
scratch=${TRACE_SCRATCH:-.build/trace}
if [ -z "${LLVM_BIN:-}" ]; then
  LLVM_BIN=$(dirname "$(readlink -f "$(command -v "$SWIFT")")")
  [ -x "$LLVM_BIN/llvm-profdata" ] || LLVM_BIN=/opt/swift/usr/bin
fi
root=$(pwd -P)
[ -f "$root/Package.swift" ] && [ -d "$root/Sources/ThumbsKit" ] || { echo "run from the repository's root" >&2; exit 2; }

# A scratch path of its own resolves packages again: seed it with .build's
# checkouts, so that no network is needed when .build has them.
if [ ! -e "$scratch/workspace-state.json" ] && [ -e .build/workspace-state.json ]; then
  mkdir -p "$scratch"
  cp -a .build/checkouts .build/repositories .build/workspace-state.json "$scratch"/
fi

echo "building thumbs with coverage in $scratch (cold: 15-30 minutes)" >&2
"$SWIFT" build --product thumbs --scratch-path "$scratch" \
  -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping \
  -Xcc -fprofile-instr-generate -Xcc -fcoverage-mapping >&2
bin=$("$SWIFT" build --product thumbs --scratch-path "$scratch" --show-bin-path)/thumbs

if [ $# -eq 0 ]; then
  set -- Samples/landscape.jpg
  for f in Tests/Fixtures/heif/heic-orientation-6.heic Tests/Fixtures/video/h264.mp4; do
    [ -f "$f" ] && set -- "$@" "$f"
  done
fi

work=${TRACE_OUT:-}
if [ -z "$work" ]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work"

if [ -n "${TRACE_COMMIT:-}" ]; then
  echo "commit $TRACE_COMMIT"
elif commit=$(git rev-parse --short HEAD 2>/dev/null); then
  echo "commit $commit$(git diff --quiet HEAD -- Sources || echo ' (Sources/ changed since)')"
else
  echo "commit unknown"
fi
n=0
for source in "$@"; do
  n=$((n + 1))
  out="$work/out-$n"
  rm -rf "$out" "$work"/run-$n-*.profraw
  # %p: thumbs is one process, but a helper it might start gets its own file.
  LLVM_PROFILE_FILE="$work/run-$n-%p.profraw" "$bin" run "$source" --out "$out" --size 256 >"$work/run-$n.log" 2>&1 || true
  status=$(jq -r '.items[0].status + (if .items[0].decoder then " via " + .items[0].decoder else "" end)' "$out/manifest.json" 2>/dev/null || echo "no manifest")
  "$LLVM_BIN/llvm-profdata" merge -sparse "$work"/run-$n-*.profraw -o "$work/run-$n.profdata"
  # Per file: lines with at least one execution (the summary's lines.covered).
  "$LLVM_BIN/llvm-cov" export -summary-only -instr-profile "$work/run-$n.profdata" "$bin" |
    jq -r '.data[0].files[] | select(.summary.lines.covered > 0) | .filename' |
    while read -r file; do
      case "$file" in "$root"/Sources/*) echo "${file#"$root"/}";; esac
    done | sort -u >"$work/run-$n.files"
  files=$(wc -l <"$work/run-$n.files")
  swift_files=$(grep -c '\.swift$' "$work/run-$n.files" || true)
  folders=$(sed 's|/[^/]*$||' "$work/run-$n.files" | sort -u)
  echo
  echo "== $source ($status): $files files ($swift_files Swift, $((files - swift_files)) C), $(echo "$folders" | grep -c .) folders"
  echo "$folders" | while read -r folder; do
    names=$(grep "^$folder/[^/]*$" "$work/run-$n.files" | sed 's|.*/||' | tr '\n' ' ')
    echo "  $folder ($(echo $names | wc -w)): $names"
  done
done
