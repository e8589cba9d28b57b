#!/usr/bin/env bash
# Off CI. Fuzzes thumbs' Swift parsers of untrusted bytes (the format
# sniffers and the TIFF directory walker RAWs are read with) with libFuzzer
# and AddressSanitizer, compiling those source files alone with the
# harness (sniffer_fuzzer.swift):
#
#   fuzz/swift/build.sh              builds fuzz/out/sniffer_fuzzer and its coverage twin
#   fuzz/swift/build.sh run [SECONDS]  seeds from Tests/Fixtures (raw, video, heif;
#                                    first 64 KiB of each) and fuzzes (1 process)
#   fuzz/swift/build.sh cover        replays the corpus, prints line coverage
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

build() {
  "$bin/swiftc" -O -g -sanitize=fuzzer,address -parse-as-library -module-name ThumbsFuzz \
    "$here/sniffer_fuzzer.swift" $srcs -o "$out/sniffer_fuzzer" 2> >(grep -v "Cannot export local symbol" >&2)
  "$bin/swiftc" -O -g -sanitize=fuzzer -profile-generate -profile-coverage-mapping -parse-as-library \
    -module-name ThumbsFuzz "$here/sniffer_fuzzer.swift" $srcs -o "$out/sniffer_cover"
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
  cover)
    rm -f "$out"/sniffer.profraw
    LLVM_PROFILE_FILE="$out/sniffer.profraw" "$out/sniffer_cover" -runs=0 "$out/sniffer-corpus" "$out/sniffer-seeds" >/dev/null 2>&1
    "$bin/llvm-profdata" merge -sparse "$out/sniffer.profraw" -o "$out/sniffer.profdata"
    "$bin/llvm-cov" report "$out/sniffer_cover" -instr-profile="$out/sniffer.profdata" $srcs ;;
esac
