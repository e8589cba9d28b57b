#!/usr/bin/env bash
# Off CI. Builds and runs raw_stream_fuzzer.cpp (libFuzzer + ASan + UBSan):
# LibRaw from memory against LibRaw through CRawShim's BoundedStream.
#   fuzz/raw.sh [SECONDS]   seeds: Tests/Fixtures/raw; corpus in fuzz/out/raw-corpus
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
mkdir -p "$out/raw-corpus"
shim=$root/Sources/CRawShim
# -fopenmp (in LibRaw's --libs) would want the toolchain's missing omp.h: LibRaw links libgomp itself.
"$cxx" -O1 -g -std=c++17 -I"$shim/include" $(pkg-config --cflags libraw_r) \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  "$here/raw_stream_fuzzer.cpp" "$shim/raw_shim.cpp" -o "$out/raw_stream_fuzzer" $(pkg-config --libs libraw_r | sed "s/-fopenmp//") -ldl
cp -n "$root"/Tests/Fixtures/raw/*.* "$out/raw-corpus/" 2>/dev/null || true
rm -f "$out/raw-corpus/README.md"
"$out/raw_stream_fuzzer" -max_total_time="${1:-60}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 "$out/raw-corpus"
