#!/usr/bin/env python3
"""Look-alike recall and false pairs of the 64-bit pHash, to choose the
default `--similar D` (issue 11).

    python3 -m venv /tmp/la && /tmp/la/bin/pip install pyvips imagehash numpy scipy pillow
    /tmp/la/bin/python bench/lookalikes.py [--dir bench-out/lookalikes] [--count 1000] [--originals 20]

1. Makes COUNT distinct photo-like JPEGs (640x480, Q90) with the recipe of
   make-corpus.sh, run in-process with pyvips (same operations, same seeds:
   the files are byte-identical to `make-corpus.sh DIR COUNT 640 480`, which is
   much slower because it starts 13 vips processes per photo). Existing files
   are kept.
2. Makes variants of the first ORIGINALS photos: re-encoded at Q50, resized
   to 50 %, cropped by 5 % (a centred crop keeping 95 % of each side), 10 %
   brighter (pixel values x 1.1, clipped), saved as WebP (libvips default,
   Q75), and rotated 90 degrees with an EXIF orientation tag (pixels stored
   turned 90 degrees anticlockwise plus orientation 6, so the displayed image
   is the original); and, measured only, the same rotation without the tag.
3. Hashes every image two ways, and a third when --thumbs names a binary:
   - "pipeline": what thumbs will do: decode, auto-rotate, resize to exactly
     32x32 ignoring the aspect ratio with libvips (Lanczos3), Pillow's grey
     formula (L24), then imagehash's DCT/median/bits on those 32x32 levels;
   - "imagehash": imagehash.phash on the auto-rotated Pillow image (Pillow's
     grey conversion first, then its own Lanczos resize to 32x32), the
     reference definition;
   - "thumbs": the `phash` thumbs itself writes in its manifest (a run over
     --dir with --size 256), which is what users get.
4. Prints, for D = 1..12: recall per variant kind (the variant within D bits of
   its original) and the pairs among the COUNT distinct photos within D bits
   (false pairs), for both hash ways, plus the distance distributions.

A pHash sets exactly 32 of its 64 bits (the bits above the median of 64
values) unless coefficients tie with the median, so distances between
ordinary images are even and an odd D behaves like D - 1.
"""
import argparse
import io
import os
import struct
import sys

import imagehash
import numpy as np
import pyvips
from PIL import Image, ImageOps

KINDS = ["reencode_q50", "resize_50", "crop_5", "bright_10", "webp", "exif_rot90", "rot90_no_exif"]
REQUIRED = {"reencode_q50", "resize_50", "bright_10", "webp"}


def photo(i, width, height, quality=90):
    """make-corpus.sh's photo number i, as JPEG bytes."""
    lw, lh, mw, mh = width // 100, height // 100, width // 10, height // 10
    bands = [pyvips.Image.gaussnoise(lw, lh, sigma=55, mean=128, seed=i * 7 + b).resize(100, kernel="cubic")
             for b in range(3)]
    low = bands[0].bandjoin(bands[1:])
    mid = pyvips.Image.gaussnoise(mw, mh, sigma=22, mean=0, seed=i * 7 + 3).resize(10, kernel="cubic")
    fine = pyvips.Image.gaussnoise(width, height, sigma=2, mean=0, seed=i * 7 + 4)
    return (low + (mid + fine)).cast("uchar").copy(interpretation="srgb").jpegsave_buffer(Q=quality)


def with_orientation(jpeg, orientation):
    """The JPEG with a minimal EXIF segment carrying `orientation` (as
    scripts/set-exif-orientation.py)."""
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8)
    tiff += struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
    payload = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def variant(kind, jpeg):
    """(bytes, extension) of one variant of an original JPEG."""
    img = pyvips.Image.new_from_buffer(jpeg, "")
    w, h = img.width, img.height
    if kind == "reencode_q50":
        return img.jpegsave_buffer(Q=50), "jpg"
    if kind == "resize_50":
        return img.resize(0.5, kernel="lanczos3").jpegsave_buffer(Q=90), "jpg"
    if kind == "crop_5":
        cw, ch = round(w * 0.95), round(h * 0.95)
        return img.crop((w - cw) // 2, (h - ch) // 2, cw, ch).jpegsave_buffer(Q=90), "jpg"
    if kind == "bright_10":
        return (img * 1.1).cast("uchar").jpegsave_buffer(Q=90), "jpg"  # cast clips to 0..255
    if kind == "webp":
        return img.webpsave_buffer(), "webp"
    if kind == "exif_rot90":
        return with_orientation(img.rot("d270").jpegsave_buffer(Q=90), 6), "jpg"
    if kind == "rot90_no_exif":
        return img.rot("d270").jpegsave_buffer(Q=90), "jpg"
    raise ValueError(kind)


def grey32_pipeline(path):
    """decode -> autorotate -> exactly 32x32 (libvips Lanczos3) -> Pillow's L."""
    img = pyvips.Image.new_from_file(path).autorot()
    if img.hasalpha():
        img = img.flatten()
    img = img.resize(32 / img.width, vscale=32 / img.height, kernel="lanczos3")
    if (img.width, img.height) != (32, 32):  # guard against a rounding to 31 or 33
        img = img.gravity("centre", 32, 32, extend="copy")
    a = np.ndarray(buffer=img.write_to_memory(), dtype=np.uint8, shape=(32, 32, img.bands)).astype(np.int64)
    if img.bands == 1:
        return a[..., 0].astype(np.uint8)
    return ((a[..., 0] * 19595 + a[..., 1] * 38470 + a[..., 2] * 7471 + 0x8000) >> 16).astype(np.uint8)


def phash_bits(grey32):
    """imagehash's phash on 32x32 levels (its resize to 32x32 is the identity)."""
    return int(str(imagehash.phash(Image.fromarray(grey32, "L"))), 16)


def hashes(path):
    pipeline = phash_bits(grey32_pipeline(path))
    with Image.open(path) as im:
        reference = int(str(imagehash.phash(ImageOps.exif_transpose(im))), 16)
    return pipeline, reference


def popcount(x):
    return bin(x).count("1")


def pair_distances(values):
    """All pairwise Hamming distances among `values`, as an array."""
    arr = np.array(values, dtype=np.uint64)
    out = []
    for i in range(len(arr) - 1):
        x = np.bitwise_xor(arr[i + 1:], arr[i])
        bits = np.unpackbits(x.view(np.uint8).reshape(-1, 8), axis=1).sum(1)
        out.append(bits)
    return np.concatenate(out) if out else np.array([], dtype=int)


def thumbs_hashes(binary, directory):
    """{path relative to `directory`: pHash} from a thumbs run over it."""
    import json
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([binary, "run", directory, "--out", out, "--size", "256", "--quiet", "--max-failures", "100%"], check=True)
        with open(os.path.join(out, "manifest.json")) as f:
            items = json.load(f)["items"]
    return {item["id"]: int(item["phash"], 16) for item in items if item.get("phash")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="bench-out/lookalikes")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--originals", type=int, default=20)
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--distances", default="1-12", help="range of D for the tables, e.g. 1-12")
    ap.add_argument("--thumbs", default=os.environ.get("THUMBS_BIN"), help="a thumbs binary: also measure its own pHash")
    args = ap.parse_args()
    width, height = map(int, args.size.split("x"))
    photos_dir = os.path.join(args.dir, "photos")
    variants_dir = os.path.join(args.dir, "variants")
    os.makedirs(photos_dir, exist_ok=True)
    os.makedirs(variants_dir, exist_ok=True)

    paths = []
    for i in range(1, args.count + 1):
        p = os.path.join(photos_dir, f"photo_{i:04d}.jpg")
        if not (os.path.exists(p) and os.path.getsize(p) > 0):
            with open(p + ".tmp", "wb") as f:
                f.write(photo(i, width, height))
            os.replace(p + ".tmp", p)
        paths.append(p)
    print(f"{len(paths)} photos {width}x{height} in {photos_dir}", file=sys.stderr)

    photo_hashes = [hashes(p) for p in paths]
    variant_distances = {k: ([], [], []) for k in KINDS}
    variant_paths = {k: [] for k in KINDS}
    for i in range(args.originals):
        original = open(paths[i], "rb").read()
        for kind in KINDS:
            data, ext = variant(kind, original)
            p = os.path.join(variants_dir, f"photo_{i + 1:04d}_{kind}.{ext}")
            with open(p, "wb") as f:
                f.write(data)
            variant_paths[kind].append(p)
            ph, rh = hashes(p)
            variant_distances[kind][0].append(popcount(ph ^ photo_hashes[i][0]))
            variant_distances[kind][1].append(popcount(rh ^ photo_hashes[i][1]))

    labels = ["pipeline (libvips 32x32 + L24)", "imagehash.phash (Pillow)"]
    if args.thumbs:
        theirs = thumbs_hashes(args.thumbs, args.dir)
        photo_hashes = [(a, b, theirs[os.path.relpath(p, args.dir)]) for (a, b), p in zip(photo_hashes, paths)]
        for i in range(args.originals):
            for kind in KINDS:
                th = theirs[os.path.relpath(variant_paths[kind][i], args.dir)]
                variant_distances[kind][2].append(popcount(th ^ photo_hashes[i][2]))
        labels.append("thumbs (its manifest's phash, --size 256)")
    distinct = [pair_distances([h[w] for h in photo_hashes]) for w in range(len(labels))]
    n_pairs = len(distinct[0])
    for w, label in enumerate(labels):
        print(f"\n## pHash way: {label}")
        print(f"variants of {args.originals} photos; false pairs among {args.count} distinct photos ({n_pairs} pairs)\n")
        print("| D | " + " | ".join(KINDS) + " | false pairs |")
        print("|---|" + "---|" * len(KINDS) + "---|")
        low, high = map(int, args.distances.split("-"))
        for d in range(low, high + 1):
            cells = []
            for kind in KINDS:
                dist = variant_distances[kind][w]
                hit = sum(1 for x in dist if x <= d)
                cells.append(f"{100 * hit / len(dist):.0f}%")
            false_pairs = int((distinct[w] <= d).sum())
            print(f"| {d} | " + " | ".join(cells) + f" | {false_pairs} |")
        print("\ndistance to the original, per kind: median / max (all values)")
        for kind in KINDS:
            dist = sorted(variant_distances[kind][w])
            print(f"  {kind:14s} {int(np.median(dist)):3d} / {max(dist):3d}   {dist}")
        dd = distinct[w]
        print(f"distinct pairs: min {dd.min()}, 0.01% {np.percentile(dd, 0.01):.0f}, 1% {np.percentile(dd, 1):.0f}, "
              f"median {np.median(dd):.0f}; pairs <= 12: {int((dd <= 12).sum())}, <= 16: {int((dd <= 16).sum())}")


if __name__ == "__main__":
    main()
