#!/usr/bin/env bash
# Off CI. Fuzzes thumbs' Swift parsers of untrusted bytes with libFuzzer
# and AddressSanitizer, compiling those source files alone with a harness:
# the format sniffers and the TIFF directory walker RAWs are read with
# (sniffer_fuzzer.swift), and the partial download's scan watch and prefix
# completion (progressive_fuzzer.swift).
#
#   fuzz/swift/build.sh              builds both fuzzers and their coverage twins in fuzz/out
#   fuzz/swift/build.sh run [SECONDS]  seeds from Tests/Fixtures (raw, video, heif;
#                                    first 64 KiB of each) and fuzzes the sniffers (1 process)
#   fuzz/swift/build.sh cover        replays that corpus, prints line coverage
#   fuzz/swift/build.sh progressive-run [SECONDS]   fuzzes the scan watch, seeded
#                                    with the JPEGs of fuzz/make_jpegs.sh
#   fuzz/swift/build.sh progressive-cover
#
# A Swift trap (index out of range, arithmetic overflow, a failed unwrap)
# is a crash to libFuzzer, as an ASan report is.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/fuzz/out
mkdir -p "$out"
bin=$(dirname "$(readlink -f "$(command -v swiftc 2>/dev/null || echo /opt/swift/usr/bin/swiftc)")")
d=$root/Sources/ThumbsKit/Discovery
srcs="$d/ImageSniffer.swift $d/VideoSniffer.swift $d/RawSniffer.swift $d/TIFFDirectories.swift"
f=$root/Sources/ThumbsKit/Fetching
progressive_srcs="$f/ProgressiveScanWatch.swift $f/JPEGPrefixCompletion.swift"

# $1 harness name, then its sources.
build_one() {
  local name=$1; shift
  "$bin/swiftc" -O -g -sanitize=fuzzer,address -parse-as-library -module-name ThumbsFuzz \
    "$here/${name}_fuzzer.swift" "$@" -o "$out/${name}_fuzzer" 2> >(grep -v "Cannot export local symbol" >&2)
  "$bin/swiftc" -O -g -sanitize=fuzzer -profile-generate -profile-coverage-mapping -parse-as-library \
    -module-name ThumbsFuzz "$here/${name}_fuzzer.swift" "$@" -o "$out/${name}_cover"
}

build() {
  build_one sniffer $srcs
  build_one progressive $progressive_srcs
}

# The input's first byte picks the chunk size the harness feeds.
progressive_seeds() {
  rm -rf "$out/progressive-seeds" "$out/progressive-tmp"; mkdir -p "$out/progressive-seeds"
  "$root/fuzz/make_jpegs.sh" "$out/progressive-tmp" 43 37 >/dev/null
  for j in "$out"/progressive-tmp/*.jpg; do
    printf '\x05' | cat - "$j" >"$out/progressive-seeds/$(basename "$j")"
  done
  rm -rf "$out/progressive-tmp"
}

seeds() {
  rm -rf "$out/sniffer-seeds"; mkdir -p "$out/sniffer-seeds"
  for f in "$root"/Tests/Fixtures/{raw,video,heif}/*; do
    case $f in *.md) continue ;; esac
    [[ -f $f ]] && head -c 65536 "$f" >"$out/sniffer-seeds/$(basename "$f")"
  done
}

case ${1:-build} in
  build) build ;;
  run)
    build; seeds; mkdir -p "$out/sniffer-corpus" "$out/sniffer-crashes"
    "$out/sniffer_fuzzer" "$out/sniffer-corpus" "$out/sniffer-seeds" -dict="$here/tiff.dict" \
      -max_len=65536 -timeout=10 -rss_limit_mb=2048 -max_total_time="${2:-900}" -print_final_stats=1 \
      -artifact_prefix="$out/sniffer-crashes/" ;;
  progressive-run)
    build; progressive_seeds; mkdir -p "$out/progressive-corpus" "$out/progressive-crashes"
    "$out/progressive_fuzzer" "$out/progressive-corpus" "$out/progressive-seeds" -dict="$root/fuzz/jpeg.dict" \
      -max_len=65536 -timeout=10 -rss_limit_mb=2048 -max_total_time="${2:-900}" -print_final_stats=1 \
      -artifact_prefix="$out/progressive-crashes/" ;;
  progressive-cover)
    rm -f "$out"/progressive.profraw
    LLVM_PROFILE_FILE="$out/progressive.profraw" "$out/progressive_cover" -runs=0 "$out/progressive-corpus" \
      "$out/progressive-seeds" >/dev/null 2>&1
    "$bin/llvm-profdata" merge -sparse "$out/progressive.profraw" -o "$out/progressive.profdata"
    "$bin/llvm-cov" report "$out/progressive_cover" -instr-profile="$out/progressive.profdata" $progressive_srcs ;;
  cover)
    rm -f "$out"/sniffer.profraw
    LLVM_PROFILE_FILE="$out/sniffer.profraw" "$out/sniffer_cover" -runs=0 "$out/sniffer-corpus" "$out/sniffer-seeds" >/dev/null 2>&1
    "$bin/llvm-profdata" merge -sparse "$out/sniffer.profraw" -o "$out/sniffer.profdata"
    "$bin/llvm-cov" report "$out/sniffer_cover" -instr-profile="$out/sniffer.profdata" $srcs ;;
esac
