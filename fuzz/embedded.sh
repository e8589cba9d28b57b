#!/usr/bin/env bash
# Off CI (not part of the Swift package or `make test`). Fuzzes the
# embedded-picture parser (Sources/CVipsShim/embedded_pictures.c) with the
# toolchain's clang, as build.sh does the JPEG decoders:
#
#   fuzz/embedded.sh                build embedded_fuzzer (libFuzzer + ASan +
#                                   UBSan), embedded_cover and embedded_list
#                                   into fuzz/out
#   fuzz/embedded.sh run [SECONDS]  also makes the seeds and fuzzes (1 process,
#                                   under nice: the build machine is shared)
#   fuzz/embedded.sh cover          replays the corpus, prints the coverage
#   fuzz/out/embedded_list FILE...  what the parser lists for real files
#
# Seeds: make_embedded_seeds.py's crafted files, the test fixtures of
# Tests/Fixtures/previews, and fuzz/embedded-crashes (reproducers of what
# the fuzzer found, kept).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
srcs="$shim/embedded_pictures.c $shim/jpeg_exif.c"
flags="-g -I$shim/include -I$shim -fuse-ld=lld"

build() {
  $cc -O1 $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    "$here/embedded_fuzzer.c" $srcs -o "$out/embedded_fuzzer"
  $cc -O1 $flags -fprofile-instr-generate -fcoverage-mapping -fsanitize=fuzzer \
    "$here/embedded_fuzzer.c" $srcs -o "$out/embedded_cover"
  $cc -O1 $flags -fsanitize=address,undefined "$here/embedded_list.c" $srcs -o "$out/embedded_list"
}

seeds() {
  rm -rf "$out/embedded-seeds"
  python3 "$here/make_embedded_seeds.py" "$out/embedded-seeds"
  cp "$root"/Tests/Fixtures/previews/*.jpg "$root"/Tests/Fixtures/previews/*.mpo "$out/embedded-seeds/"
  if [[ -d $here/embedded-crashes ]]; then cp "$here"/embedded-crashes/* "$out/embedded-seeds/" 2>/dev/null || true; fi
}

case ${1:-build} in
  build) build ;;
  run)
    build; seeds; mkdir -p "$out/embedded-corpus" "$out/embedded-found"
    ASAN_OPTIONS=detect_leaks=1 nice -n 19 "$out/embedded_fuzzer" "$out/embedded-corpus" "$out/embedded-seeds" \
      -dict="$here/embedded.dict" -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
      -max_total_time="${2:-600}" -print_final_stats=1 -artifact_prefix="$out/embedded-found/" ;;
  cover)
    rm -f "$out"/embedded.profraw
    LLVM_PROFILE_FILE="$out/embedded.profraw" "$out/embedded_cover" -runs=0 "$out/embedded-corpus" "$out/embedded-seeds" >/dev/null 2>&1
    "$bin/llvm-profdata" merge -sparse "$out/embedded.profraw" -o "$out/embedded.profdata"
    "$bin/llvm-cov" report "$out/embedded_cover" -instr-profile="$out/embedded.profdata" "$shim/embedded_pictures.c" ;;
esac
