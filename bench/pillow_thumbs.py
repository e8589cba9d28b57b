#!/usr/bin/env python3
"""Pillow peer for the thumbs bench.

    pillow_thumbs.py SRC_DIR OUT_DIR [--size 256 | --sizes 1024,256]
                     [--quality 80] [--jobs N] [--format jpeg|png]
                     [--color-manage] [--exif-transpose]

For every *.jpg / *.jpeg in SRC_DIR (not recursive): Image.draft('RGB',
(size, size)) so libjpeg decodes at the smallest 1/2, 1/4 or 1/8 scale that is
still at least size x size, then thumbnail((size, size), LANCZOS), then save
OUT_DIR/<stem>.jpg at the given quality (no metadata). Work is spread over a
multiprocessing Pool of N processes (default: the number of cores).

--sizes 1024,256 makes several sizes from one decode, the way a careful
Pillow script does: draft for the largest box, thumbnail to it, save, then
each smaller size from the previous (larger) rendition, not from the decode.
Outputs go to OUT_DIR/<size>/<stem>.jpg (thumbs' layout).

--color-manage: a source with an embedded ICC profile is transformed to sRGB
with ImageCms (lcms2) after the resize, at thumbnail size (the cheap order).
--exif-transpose: ImageOps.exif_transpose after the resize (EXIF orientation).
"""
import argparse
import io
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageOps

try:
    LANCZOS = Image.Resampling.LANCZOS
except AttributeError:  # Pillow < 9.1
    LANCZOS = Image.LANCZOS

SIZES = [256]
QUALITY = 80
OUT = "."
FORMAT = "jpeg"
MANAGE = False
TRANSPOSE = False
SRGB = None


def init(sizes, quality, out, fmt, manage, transpose):
    global SIZES, QUALITY, OUT, FORMAT, MANAGE, TRANSPOSE, SRGB
    SIZES, QUALITY, OUT, FORMAT, MANAGE, TRANSPOSE = sizes, quality, out, fmt, manage, transpose
    if manage:
        from PIL import ImageCms
        SRGB = ImageCms.createProfile("sRGB")


def to_srgb(im, icc):
    from PIL import ImageCms
    src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    return ImageCms.profileToProfile(im, src, SRGB, outputMode="RGB")


def save(im, path):
    if FORMAT == "png":
        im.save(path + ".png", "PNG")
    else:
        im.save(path + ".jpg", "JPEG", quality=QUALITY)


def one(path):
    try:
        stem = os.path.splitext(os.path.basename(path))[0]
        with Image.open(path) as im:
            icc = im.info.get("icc_profile") if MANAGE else None
            big = SIZES[0]
            im.draft("RGB", (big, big))
            im.thumbnail((big, big), LANCZOS)
            if TRANSPOSE:
                im = ImageOps.exif_transpose(im)
            if im.mode != "RGB":
                im = im.convert("RGB")
            if icc:
                im = to_srgb(im, icc)
            for k, size in enumerate(SIZES):
                if k:  # each smaller size from the previous rendition
                    im = im.copy()
                    im.thumbnail((size, size), LANCZOS)
                out = OUT if len(SIZES) == 1 else os.path.join(OUT, str(size))
                save(im, os.path.join(out, stem))
        return None
    except Exception as e:  # report, keep going
        return f"{path}: {e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--sizes", help="comma-separated boxes, e.g. 1024,256")
    ap.add_argument("--quality", type=int, default=80)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--format", choices=("jpeg", "png"), default="jpeg")
    ap.add_argument("--color-manage", action="store_true")
    ap.add_argument("--exif-transpose", action="store_true")
    a = ap.parse_args()
    sizes = sorted({int(s) for s in a.sizes.split(",")}, reverse=True) if a.sizes else [a.size]
    os.makedirs(a.out, exist_ok=True)
    if len(sizes) > 1:
        for s in sizes:
            os.makedirs(os.path.join(a.out, str(s)), exist_ok=True)
    files = sorted(os.path.join(a.src, n) for n in os.listdir(a.src)
                   if n.lower().endswith((".jpg", ".jpeg")))
    init_args = (sizes, a.quality, a.out, a.format, a.color_manage, a.exif_transpose)
    with Pool(a.jobs, initializer=init, initargs=init_args) as pool:
        errors = [e for e in pool.imap_unordered(one, files, chunksize=2) if e]
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
