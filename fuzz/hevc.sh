#!/usr/bin/env bash
# Off CI. Fuzzes thumbs' FFmpeg HEVC plugin for libheif
# (Sources/CHeifShim/heif_hevc_ffmpeg.c) with libFuzzer, ASan and UBSan:
#
#   fuzz/hevc.sh [SECONDS] [FILE.heic...]   builds, makes seeds (the first
#                 tiles' coded data of the HEICs named, by default the
#                 test fixture), fuzzes (1 process, 600 s by default)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
mkdir -p "$out/hevc-seeds" "$out/hevc-corpus" "$out/hevc-crashes"
flags="-g -I$root/Sources/CHeifShim -I$root/Sources/CHeifShim/include -I$root/Sources/CLoadOnUse/include -I$root/Sources/CVipsShim/include $(pkg-config --cflags vips libheif)"
libs="$(pkg-config --libs libheif libavcodec libavutil vips)"
# The plugin reaches FFmpeg and libheif through CLoadOnUse's tables.
loaders=("$root/Sources/CLoadOnUse/ffmpeg_library.c" "$root/Sources/CLoadOnUse/heif_library.c" "$root/Sources/CLoadOnUse/library_open.c")
$cc -O1 $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  "$here/hevc_plugin_fuzzer.c" "${loaders[@]}" -o "$out/hevc_plugin_fuzzer" $libs
$cc -O1 $flags -DHEVC_SEEDS "$here/hevc_plugin_fuzzer.c" "${loaders[@]}" -o "$out/hevc_seeds" $libs
seconds=${1:-600}
shift || true
(( $# )) || set -- "$root/Tests/Fixtures/heif/heic-orientation-6.heic"
"$out/hevc_seeds" "$out/hevc-seeds" "$@"
ASAN_OPTIONS=detect_leaks=1 "$out/hevc_plugin_fuzzer" "$out/hevc-corpus" "$out/hevc-seeds" \
  -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$out/hevc-crashes/"
