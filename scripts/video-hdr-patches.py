#!/usr/bin/env python3
"""Frames of 128x128 yuv420p10le (limited range, BT.2020 non-constant
luminance) with four 64x64 patches, for scripts/make-video-fixtures.sh.

Patches, in signal values (R'G'B' in 0..1 of the transfer named on the
command line, pq or hlg), top left, top right, bottom left, bottom right:
  pq:  10 nits grey, 203 nits grey (reference white), 1000 nits grey, BT.2020 red at 100 nits
  hlg: 0.25 grey, 0.75 grey (reference white), 1.0 grey, red 0.75
The tests compute what they must become from these same signal values.
"""
import math, sys

def pq_signal(nits):
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    y = (nits / 10000) ** m1
    return ((c1 + c2 * y) / (1 + c3 * y)) ** m2

kind = sys.argv[1]
if kind == "pq":
    g10, g203, g1000 = pq_signal(10), pq_signal(203), pq_signal(1000)
    patches = [(g10,) * 3, (g203,) * 3, (g1000,) * 3, (pq_signal(100), 0.0, 0.0)]
else:
    patches = [(0.25,) * 3, (0.75,) * 3, (1.0,) * 3, (0.75, 0.0, 0.0)]

def ycbcr(rgb):
    r, g, b = rgb
    y = 0.2627 * r + 0.6780 * g + 0.0593 * b
    cb = (b - y) / 1.8814
    cr = (r - y) / 1.4746
    return (round(64 + 876 * y), round(512 + 896 * cb), round(512 + 896 * cr))

codes = [ycbcr(p) for p in patches]
size, half = 128, 64
def plane(index, n, block):
    out = bytearray()
    for y in range(n):
        for x in range(n):
            p = (0 if y < block else 2) + (0 if x < block else 1)
            out += codes[p][index].to_bytes(2, "little")
    return out
frame = plane(0, size, half) + plane(1, size // 2, half // 2) + plane(2, size // 2, half // 2)
for _ in range(20):
    sys.stdout.buffer.write(frame)
