#!/usr/bin/env bash
# Makes Tests/Fixtures/heif/hdr-pq-card.avif: the HDR test card of
# HDRStillTests (BT.2020 primaries, PQ, 10 bits, full range), encoded by
# FFmpeg's AV1 encoder (libheif 1.15's own AV1 encoder aborts on 10-bit
# input). Left half, top to bottom: greys at 5, 20, 100, 203 and 600 nits;
# right half: BT.2020 red, green and blue at 100 nits each, then a 1000-nit
# white. The HEIC cards are written by the tests themselves
# (test_write_hdr_heif). Needs python3, vips and ffmpeg with libaom.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/card.ppm" <<'PY'
import struct, sys
W, H = 320, 240
m1, m2 = 2610 / 16384, 2523 / 4096 * 128
c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
def pq(nits):  # SMPTE ST 2084 inverse EOTF
    y = min(max(nits / 10000, 0), 1) ** m1
    return ((c1 + c2 * y) / (1 + c3 * y)) ** m2
greys = [5, 20, 100, 203, 600]
colours = [(100, 0, 0), (0, 100, 0), (0, 0, 100), (1000, 1000, 1000)]
with open(sys.argv[1], "wb") as f:
    f.write(b"P6\n%d %d\n65535\n" % (W, H))
    for y in range(H):
        row = bytearray()
        for x in range(W):
            px = (greys[y * 5 // H],) * 3 if x < W // 2 else colours[y * 4 // H]
            for v in px:
                row += struct.pack(">H", round(pq(v) * 65535))
        f.write(row)
PY
ffmpeg -v error -y -i "$work/card.ppm" \
    -vf scale=out_color_matrix=bt2020:out_range=full,format=yuv420p10le \
    -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -color_range pc \
    -c:v libaom-av1 -crf 10 -still-picture 1 Tests/Fixtures/heif/hdr-pq-card.avif
ls -l Tests/Fixtures/heif/hdr-pq-card.avif
