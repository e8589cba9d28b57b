#!/usr/bin/env bash
# Makes Tests/Fixtures/heif/hdr-pq-card.avif: the HDR test card of
# HDRStillTests (BT.2020 primaries, PQ, 10 bits, full range), encoded by
# FFmpeg's AV1 encoder (libheif 1.15's own AV1 encoder aborts on 10-bit
# input). Left half, top to bottom: greys at 5, 20, 100, 203 and 600 nits;
# right half: BT.2020 red, green and blue at 100 nits each, then a 1000-nit
# white. The HEIC cards are written by the tests themselves
# (test_write_hdr_heif). Needs python3, vips and ffmpeg with libaom.
#
# Also Tests/Fixtures/heif/twin-pq.avif and twin-hlg.avif: HDRTwinTests'
# SDR colour bars (sRGB, 192x80) made PQ and HLG by FFmpeg's zscale, not by
# the tests' own formulas: sRGB to linear light with SDR white at 203 nits
# (BT.2408), BT.2020 primaries, then PQ, or HLG with BT.2100's OOTF on
# luminance (agamma=0: zscale's default approximate gamma applies a gamma
# of 1.2 to each channel instead, see make-video-fixtures.sh), 10-bit 4:4:4.
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

python3 - "$work/bars.ppm" <<'PY'
import sys
W, H = 192, 80
bars = [(1, 1, 1), (1, 1, 0), (0, 1, 1), (0, 1, 0), (1, 0, 1), (1, 0, 0), (0, 0, 1), (0.5, 0.5, 0.5),
        (1, 0.5, 0), (0.9, 0.7, 0.55), (0.4, 0.6, 0.9), (0.3, 0.55, 0.2)]  # HDRTwinTests.bars
levels = [1, 0.75]
with open(sys.argv[1], "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (W, H))
    for y in range(H):
        level = levels[y * len(levels) // H]
        f.write(bytes(round(c * level * 255) for x in range(W) for c in bars[x * len(bars) // W]))
PY
for trc in smpte2084 arib-std-b67; do
    name=$([ "$trc" = smpte2084 ] && echo pq || echo hlg)
    ffmpeg -v error -y -i "$work/bars.ppm" \
        -vf "zscale=tin=iec61966-2-1:pin=bt709:min=gbr:rin=full:t=linear:p=bt709:m=gbr:r=full:npl=203,format=gbrpf32le,zscale=p=bt2020:t=$trc:m=bt2020nc:r=full:npl=203:agamma=0,format=yuv444p10le" \
        -color_primaries bt2020 -color_trc "$trc" -colorspace bt2020nc -color_range pc \
        -c:v libaom-av1 -crf 4 -still-picture 1 "Tests/Fixtures/heif/twin-$name.avif"
done
ls -l Tests/Fixtures/heif/twin-*.avif
