#!/usr/bin/env bash
# Off CI (not part of the Swift package or `make test`). Builds the direct
# JPEG path's fuzzer and tools with the toolchain's clang into fuzz/out:
#
#   fuzz/build.sh                 fuzzer (libFuzzer + ASan + UBSan), coverage
#                                 replayer, dccheck (checks and timing),
#                                 dchash (pixel hashes: byte-identity of a refactor)
#   fuzz/build.sh run [SECONDS]   also makes the seeds and fuzzes (1 process)
#   fuzz/build.sh cover           replays the corpus, prints jpeg_dc.c coverage
#
# fuzz/identity.sh [REV] checks that a change leaves the decoded pixels
# byte-identical (dchash over generated files, fixtures and the corpus).
# fuzz/jpegtime.c (CPU ms per decode at each shrink) and fuzz/quartercheck.c
# (the 1/4 paths against libjpeg's 1/4: CPU ms and PSNR) build by hand at
# -O2 (see their headers). Every tool plans paths as JPEGPathRule does
# (decode_to.h).
#   fuzz/build.sh prog-run [SECONDS]  fuzzes jpeg_prog.c alone (prog_fuzzer.c)
#   fuzz/build.sh prog-cover      replays that corpus, prints jpeg_prog.c coverage
#   fuzz/build.sh marker-run [SECONDS]  fuzzes the marker payload parsers
#                                 (marker_fuzzer.c: Exif, ICC, DHT/DQT/DRI/SOS),
#                                 each payload in an allocation of its own
#   fuzz/build.sh marker-cover    replays that corpus, prints their coverage
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
srcs="$shim/jpeg_scan.c $shim/jpeg_exif.c $shim/jpeg_dc.c $shim/jpeg_prog.c $shim/jpeg_direct.c $shim/resample.c"
marker_srcs="$shim/jpeg_scan.c $shim/jpeg_exif.c $shim/icc_fast.c"
flags="-g -I$shim/include $(pkg-config --cflags vips)"
libs="$(pkg-config --libs vips lcms2) -ljpeg -lm"

build() {
  $cc -O1 $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    "$here/jpeg_fuzzer.c" $srcs -o "$out/jpeg_fuzzer" $libs
  $cc -O1 $flags -fprofile-instr-generate -fcoverage-mapping -fsanitize=fuzzer \
    "$here/jpeg_fuzzer.c" $srcs -o "$out/jpeg_cover" $libs
  $cc -O2 $flags "$here/dccheck.c" $srcs -o "$out/dccheck" $libs
  $cc -O2 $flags "$here/dchash.c" $srcs -o "$out/dchash" $libs
  # The compact progressive decode (jpeg_prog.c) on its own, with the
  # resample its 1/1 rows stream into.
  # PG_FUZZ_RELEASE: rendered coefficient rows are poisoned, not unmapped,
  # so a read of one is an ASan report however small the image.
  $cc -O1 $flags -I$shim -DPG_FUZZ_RELEASE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    "$here/prog_fuzzer.c" "$shim/jpeg_scan.c" "$shim/jpeg_prog.c" "$shim/resample.c" -o "$out/prog_fuzzer" $libs
  $cc -O1 $flags -I$shim -fprofile-instr-generate -fcoverage-mapping -fsanitize=fuzzer \
    "$here/prog_fuzzer.c" "$shim/jpeg_scan.c" "$shim/jpeg_prog.c" "$shim/resample.c" -o "$out/prog_cover" $libs
  # The marker payload parsers, each payload in an allocation of its own.
  $cc -O1 $flags -I$shim -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    "$here/marker_fuzzer.c" $marker_srcs -o "$out/marker_fuzzer" $libs
  $cc -O1 $flags -I$shim -fprofile-instr-generate -fcoverage-mapping -fsanitize=fuzzer \
    "$here/marker_fuzzer.c" $marker_srcs -o "$out/marker_cover" $libs
}

seeds() {
  rm -rf "$out/seeds"
  mkdir -p "$out/seeds"
  for size in "43 37" "70 19"; do   # odd sizes: partial MCUs
    rm -rf "$out/seeds-tmp"
    "$here/make_jpegs.sh" "$out/seeds-tmp" $size >/dev/null
    for f in "$out"/seeds-tmp/*.jpg; do mv "$f" "$out/seeds/$(basename "${f%.jpg}")-${size/ /x}.jpg"; done
  done
  rm -rf "$out/seeds-tmp"
  # Bytes between the last MCU and the EOI, as a Minolta DiMAGE A1's
  # preview has them (jpeg_direct.c, direct_warning_spares_picture).
  for f in "$out"/seeds/*.jpg; do
    { head -c -2 "$f"; printf 'tail bytes after the last MCU'; printf '\xff\xd9'; } >"${f%.jpg}-tail.jpg"
  done
}

case ${1:-build} in
  build) build ;;
  run)
    build; [[ -d $out/seeds ]] || seeds; mkdir -p "$out/corpus" "$out/crashes"
    ASAN_OPTIONS=detect_leaks=1 "$out/jpeg_fuzzer" "$out/corpus" "$out/seeds" \
      -dict="$here/jpeg.dict" -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
      -max_total_time="${2:-1200}" -print_final_stats=1 -artifact_prefix="$out/crashes/" ;;
  prog-run)
    build; [[ -d $out/seeds ]] || seeds; mkdir -p "$out/prog-corpus" "$out/prog-crashes"
    ASAN_OPTIONS=detect_leaks=1 "$out/prog_fuzzer" "$out/prog-corpus" "$out/seeds" \
      -dict="$here/jpeg.dict" -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
      -max_total_time="${2:-600}" -print_final_stats=1 -artifact_prefix="$out/prog-crashes/" ;;
  marker-run)
    build; [[ -d $out/seeds ]] || seeds; mkdir -p "$out/marker-corpus" "$out/marker-crashes"
    ASAN_OPTIONS=detect_leaks=1 "$out/marker_fuzzer" "$out/marker-corpus" "$out/seeds" "$here/seeds" \
      -dict="$here/jpeg.dict" -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
      -max_total_time="${2:-600}" -print_final_stats=1 -artifact_prefix="$out/marker-crashes/" ;;
  marker-cover)
    rm -f "$out"/marker.profraw
    LLVM_PROFILE_FILE="$out/marker.profraw" "$out/marker_cover" -runs=0 "$out/marker-corpus" "$out/seeds" "$here/seeds" >/dev/null 2>&1
    "$bin/llvm-profdata" merge -sparse "$out/marker.profraw" -o "$out/marker.profdata"
    "$bin/llvm-cov" report "$out/marker_cover" -instr-profile="$out/marker.profdata" $marker_srcs ;;
  prog-cover)
    rm -f "$out"/prog.profraw
    LLVM_PROFILE_FILE="$out/prog.profraw" "$out/prog_cover" -runs=0 "$out/prog-corpus" "$out/seeds" >/dev/null 2>&1
    "$bin/llvm-profdata" merge -sparse "$out/prog.profraw" -o "$out/prog.profdata"
    "$bin/llvm-cov" report "$out/prog_cover" -instr-profile="$out/prog.profdata" "$shim/jpeg_prog.c" "$shim/resample.c" ;;
  cover)
    rm -f "$out"/*.profraw
    LLVM_PROFILE_FILE="$out/cover.profraw" "$out/jpeg_cover" -runs=0 "$out/corpus" "$out/seeds" >/dev/null 2>&1
    "$bin/llvm-profdata" merge -sparse "$out/cover.profraw" -o "$out/cover.profdata"
    "$bin/llvm-cov" report "$out/jpeg_cover" -instr-profile="$out/cover.profdata" $srcs ;;
esac
