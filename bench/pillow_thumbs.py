#!/usr/bin/env python3
"""Pillow peer for the thumbs bench.

    pillow_thumbs.py SRC_DIR OUT_DIR [--size 256] [--quality 80] [--jobs N]
                     [--format jpeg|png]

For every *.jpg / *.jpeg in SRC_DIR (not recursive): Image.draft('RGB',
(size, size)) so libjpeg decodes at the smallest 1/2, 1/4 or 1/8 scale that is
still at least size x size, then thumbnail((size, size), LANCZOS), then save
OUT_DIR/<stem>.jpg at the given quality (no metadata). Work is spread over a
multiprocessing Pool of N processes (default: the number of cores).
"""
import argparse
import os
import sys
from multiprocessing import Pool

from PIL import Image

try:
    LANCZOS = Image.Resampling.LANCZOS
except AttributeError:  # Pillow < 9.1
    LANCZOS = Image.LANCZOS

SIZE = 256
QUALITY = 80
OUT = "."
FORMAT = "jpeg"


def init(size, quality, out, fmt):
    global SIZE, QUALITY, OUT, FORMAT
    SIZE, QUALITY, OUT, FORMAT = size, quality, out, fmt


def one(path):
    try:
        with Image.open(path) as im:
            im.draft("RGB", (SIZE, SIZE))
            im.thumbnail((SIZE, SIZE), LANCZOS)
            if im.mode != "RGB":
                im = im.convert("RGB")
            stem = os.path.splitext(os.path.basename(path))[0]
            if FORMAT == "png":
                im.save(os.path.join(OUT, stem + ".png"), "PNG")
            else:
                im.save(os.path.join(OUT, stem + ".jpg"), "JPEG", quality=QUALITY)
        return None
    except Exception as e:  # report, keep going
        return f"{path}: {e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--quality", type=int, default=80)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--format", choices=("jpeg", "png"), default="jpeg")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    files = sorted(os.path.join(a.src, n) for n in os.listdir(a.src)
                   if n.lower().endswith((".jpg", ".jpeg")))
    with Pool(a.jobs, initializer=init, initargs=(a.size, a.quality, a.out, a.format)) as pool:
        errors = [e for e in pool.imap_unordered(one, files, chunksize=2) if e]
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
