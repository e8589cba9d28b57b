#!/usr/bin/env bash
# Off CI. Fuzzes the HEIF box reading of Sources/CHeifShim/heif_input.c
# (heif_primary_is_grid, heif_primary_rotation) with libFuzzer, ASan and
# UBSan:
#
#   fuzz/heif_boxes.sh [SECONDS] [FILE.heic...]   builds, seeds with the
#                 first 64 KiB of each HEIC named (by default the test
#                 fixtures: a HEIC's boxes come before its coded data), fuzzes
#                 (1 process, 300 s by default)
set -euo pipefail
source "$(dirname "$0")/toolchain.sh"
mkdir -p "$out/heif-boxes-seeds" "$out/heif-boxes-corpus" "$out/heif-boxes-crashes"
flags="-g -I$root/Sources/CHeifShim -I$root/Sources/CHeifShim/include -I$root/Sources/CVipsShim/include -I$root/Sources/CLoadOnUse/include $(pkg-config --cflags vips libheif)"
libs="$(pkg-config --libs libheif vips)"
$cc -O1 $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  "$here/heif_boxes_fuzzer.c" "$root/Sources/CLoadOnUse/heif_library.c" "$root/Sources/CLoadOnUse/library_open.c" \
  -o "$out/heif_boxes_fuzzer" $libs
seconds=${1:-300}
shift || true
(( $# )) || set -- "$root"/Tests/Fixtures/heif/*
for f in "$@"; do head -c 65536 "$f" > "$out/heif-boxes-seeds/$(basename "$f").head"; done
ASAN_OPTIONS=detect_leaks=1 "$out/heif_boxes_fuzzer" "$out/heif-boxes-corpus" "$out/heif-boxes-seeds" \
  -dict="$here/heif_boxes.dict" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$out/heif-boxes-crashes/" -max_total_time="$seconds" -print_final_stats=1
